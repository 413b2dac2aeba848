import { request } from 'node:http';

export interface TrickleResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Bytes the client had written when the server answered. */
  bytesSent: number;
  /** Milliseconds from the first byte written to the answer. */
  ms: number;
}

/**
 * A slow client: POSTs `head`, then `byte` every `intervalMs`, never ending the body (or ending it with `tail` after
 * `count` bytes), until the server answers (the answer ends the request). Chunked unless `headers` declares a `content-length` (which it then never reaches).
 *
 * @example
 * const answer = await trickleBody(`${url}/v1/evals`, { headers: { 'content-type': 'application/json' }, head: '{"name":"' });
 */
export function trickleBody(
  url: string,
  options: {
    headers: Record<string, string>;
    head: string;
    byte?: string;
    intervalMs?: number;
    /** Ends the body with `tail` after this many trickled bytes. @default never */
    count?: number;
    tail?: string;
  },
): Promise<TrickleResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const req = request(url, { method: 'POST', headers: options.headers });
    const timer = setInterval(() => {
      if (answered || req.destroyed) return;
      if (options.count !== undefined && bytesSent - Buffer.byteLength(options.head) >= options.count) {
        clearInterval(timer);
        req.end(options.tail ?? '');
        return;
      }
      req.write(options.byte ?? ' ');
      bytesSent += 1;
    }, options.intervalMs ?? 50);
    req.on('response', (res) => {
      answered = true;
      clearInterval(timer);
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytesSent, ms: performance.now() - started });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      clearInterval(timer);
      if (!answered) reject(error);
    });
    req.write(options.head);
    bytesSent += Buffer.byteLength(options.head);
  });
}
