import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps a request listener to write one line per request once its response is done or abandoned:
 * `POST /v1/evals 200 12.3ms`. The query string is left out (it may carry filters a log has no business keeping).
 *
 * @example
 * createServer(logRequests(listener, console.log));
 */
export function logRequests(listener: Listener, log: (line: string) => void): Listener {
  return (req, res) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = (req.url ?? '/').split('?')[0];
      const status = res.writableFinished ? String(res.statusCode) : `${res.statusCode} (aborted)`;
      log(`${req.method} ${path} ${status} ${ms.toFixed(1)}ms`);
    });
    listener(req, res);
  };
}
