import { pino, type DestinationStream, type Logger } from 'pino';
import type { Env } from '../config.js';

export type { Logger };

export interface LoggerOptions {
  /** Where each line goes; default standard output. */
  write?: (line: string) => void;
  /** Human-readable lines instead of JSON. @default standard output is a terminal (`LOG_FORMAT` overrides) */
  pretty?: boolean;
  /** `LOG_LEVEL`. @default 'info' */
  level?: string;
}

/** Field names whose values are never written, wherever they appear one level down (a key, a password, a body). */
const REDACTED = ['api_key', 'apiKey', 'authorization', 'password', 'token', 'content', 'url', 'bytes', 'mime_data'];

/**
 * The process's logger: one JSON object a line (pino) with `level` (a name), `time` (ISO 8601), `msg` and the
 * request's fields (`req_id`, `organization_id`, `operation`, `iteration_id`, `trace_id`); on a terminal, or with
 * `LOG_FORMAT=pretty`, one readable line each instead (`LOG_FORMAT=json` forces JSON). Keys, file contents and request
 * bodies are never logged: nothing logs them, and fields by those names are censored should one slip in.
 *
 * @example
 * const logger = createLogger(loggerOptions(process.env));
 * logger.info({ req_id: 'r1', operation: 'evals.create' }, 'POST /v1/evals 200 3.1ms');
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  const destination: DestinationStream = { write: pretty ? (line) => write(prettyLine(line)) : (line) => write(line) };
  return pino(
    {
      level: options.level ?? 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED, ...REDACTED.map((name) => `*.${name}`)], censor: '[redacted]' },
    },
    destination,
  );
}

/** `LOG_LEVEL` and `LOG_FORMAT` (json | pretty) read from the environment. */
export function loggerOptions(env: Env): LoggerOptions {
  const format = env.LOG_FORMAT?.trim();
  if (format && format !== 'json' && format !== 'pretty') throw new Error(`LOG_FORMAT must be "json" or "pretty" (received "${format}").`);
  const level = env.LOG_LEVEL?.trim();
  if (level && !['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    throw new Error(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (received "${level}").`);
  }
  return { ...(format ? { pretty: format === 'pretty' } : {}), ...(level ? { level } : {}) };
}

const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON line as `12:00:01.234 INFO  POST /v1/evals 200 3.1ms req_id=... operation=...`. */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
  const level = (typeof record.level === 'string' ? record.level : '').toUpperCase().padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${time} ${level} ${typeof record.msg === 'string' ? record.msg : ''}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
}
