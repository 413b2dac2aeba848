import type { Storage } from '@docevals/core';
import type { StandaloneConfig } from './config.js';

/**
 * PostgreSQL when `DATABASE_URL` is set, Redis when `REDIS_URL` is, else the lowdb store in `DATA_DIR`. Each adapter
 * is imported only when chosen, so a lowdb install never loads ioredis or pg, and the other way round.
 *
 * @example
 * const storage = await openStorage(readConfig(process.env));
 */
export async function openStorage(config: Pick<StandaloneConfig, 'redisUrl' | 'databaseUrl' | 'dataDir' | 'redisKeyPrefix'>): Promise<Storage> {
  if (config.databaseUrl) {
    const { postgresStorage } = await import('@docevals/adapters/postgres');
    return postgresStorage({ connectionString: config.databaseUrl });
  }
  if (config.redisUrl) {
    const { redisStorage } = await import('@docevals/adapters/redis');
    return redisStorage({ url: config.redisUrl, ...(config.redisKeyPrefix ? { keyPrefix: config.redisKeyPrefix } : {}) });
  }
  const { lowdbStorage } = await import('@docevals/adapters/lowdb');
  return lowdbStorage({ dir: config.dataDir });
}

/** Where the data lives, for the start-up message (a Redis or Postgres URL without its password). */
export function describeStorage(config: Pick<StandaloneConfig, 'redisUrl' | 'databaseUrl' | 'dataDir'>): string {
  const [name, raw] = config.databaseUrl ? ['PostgreSQL', config.databaseUrl] : ['Redis', config.redisUrl];
  if (!raw) return `lowdb in ${config.dataDir}`;
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return `${name} at ${url.toString()}`;
  } catch {
    return name;
  }
}
