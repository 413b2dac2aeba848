import { Redis, type RedisOptions } from 'ioredis';
import { DocevalsError } from '@docevals/core';
import { storageClosed } from '@docevals/core/storage-kit';
import { defineScripts, type DocevalsScripts } from './lua-scripts.js';

/**
 * Options the adapter sets on a client it creates from a URL, chosen so that a dead Redis fails an operation at once
 * with `storage_error` instead of holding it while ioredis reconnects:
 * - `lazyConnect`: nothing connects before the first operation, which then waits for that one connection attempt.
 * - `enableOfflineQueue: false`: while disconnected, a command is refused at once rather than queued.
 * - `maxRetriesPerRequest: 0`, `autoResendUnfulfilledCommands: false`: a command in flight when the connection
 *   drops is rejected at once, never resent after a reconnect. A resent replace that had in fact run would find
 *   its own version and answer null, and `updateRecord` would then apply its change a second time.
 * - `connectTimeout` 5 s and `commandTimeout` 10 s: a host that does not answer (firewalled, paused) fails too.
 * - `retryStrategy`: reconnection goes on in the background (0.1 s more per attempt, at most 2 s apart), so the store
 *   works again soon after Redis is back.
 * Any of them can be overridden with `redisOptions`.
 */
export const URL_CLIENT_DEFAULTS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 5_000,
  commandTimeout: 10_000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
};

/** The client of one store, whether the host's or the adapter's own, and the wrapping of its failures. */
export interface RedisConnection {
  readonly client: Redis & DocevalsScripts;
  /** Runs `operation` and reports any failure of Redis as `storage_error` (a DocevalsError passes through). */
  run<T>(operation: string, work: (client: Redis & DocevalsScripts) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function openRedisConnection(
  source: { client: Redis } | { url: string; redisOptions?: RedisOptions },
): RedisConnection {
  const owned = !('client' in source);
  const raw = 'client' in source ? source.client : new Redis(source.url, { ...URL_CLIENT_DEFAULTS, ...source.redisOptions });
  const client = defineScripts(raw);
  let closed = false;
  let closing: Promise<void> | undefined;
  let connecting: Promise<void> | undefined;
  // The reason the connection went down ("connect ECONNREFUSED ..."): a better cause than ioredis' "Stream isn't
  // writeable" for the commands it refuses meanwhile.
  let lastConnectionError: Error | undefined;

  if (owned) {
    // Without a listener ioredis prints every failed reconnection attempt; the adapter reports them as storage_error.
    raw.on('error', (error: Error) => {
      lastConnectionError = error;
    });
    raw.on('ready', () => {
      lastConnectionError = undefined;
    });
  }

  /** For a client the adapter owns: connect on first use; refuse at once while it is down. */
  async function ensureReady(): Promise<void> {
    switch (raw.status) {
      case 'ready':
        return;
      case 'wait':
        connecting ??= raw.connect().finally(() => {
          connecting = undefined;
        });
        return connecting;
      case 'connecting':
      case 'connect':
        if (connecting) return connecting;
        return waitForReady();
      default:
        // 'reconnecting', 'close', 'end': ioredis retries in the background; this operation does not wait for it.
        throw lastConnectionError ?? new Error(`Redis connection is ${raw.status}`);
    }
  }

  function waitForReady(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onReady = () => {
        raw.off('close', onClose);
        resolve();
      };
      const onClose = () => {
        raw.off('ready', onReady);
        reject(lastConnectionError ?? new Error('Redis connection closed'));
      };
      raw.once('ready', onReady);
      raw.once('close', onClose);
    });
  }

  const connection: RedisConnection = {
    client,
    run: (operation, work) => runWork(operation, work),
    close() {
      closed = true;
      closing ??= owned ? quit(raw) : Promise.resolve();
      return closing;
    },
  };
  return connection;

  async function runWork<T>(operation: string, work: (client: Redis & DocevalsScripts) => Promise<T>): Promise<T> {
    if (closed) throw storageClosed('redis');
    try {
      if (owned) await ensureReady();
      return await work(client);
    } catch (error) {
      if (error instanceof DocevalsError) throw error;
      // When the connection is down, what brought it down says more than "Connection is closed".
      const cause = owned && raw.status !== 'ready' && lastConnectionError ? lastConnectionError : error;
      throw redisFailure(operation, cause);
    }
  }
}

/** Ends a connection the adapter owns. */
async function quit(raw: Redis): Promise<void> {
  if (raw.status === 'ready') {
    // QUIT lets replies already on their way arrive; a failure there still ends in a closed socket.
    try {
      await raw.quit();
      return;
    } catch {
      // fall through to disconnect
    }
  }
  raw.disconnect();
}

/**
 * The one place where a failure of Redis becomes the caller's error: a `storage_error` naming the operation and a
 * short reason (the error's code or name), never the host, port or reply text (issue 13 L1); the original error is
 * the `cause`, for logs.
 */
export function redisFailure(operation: string, cause: unknown): DocevalsError {
  const code = (cause as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? code : cause instanceof Error ? cause.name : 'unknown error';
  return new DocevalsError('storage_error', `The redis storage failed during ${operation} (${reason}).`, { cause });
}
