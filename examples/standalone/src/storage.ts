import type { Storage } from '@docevals/core';
import type { StandaloneConfig } from './config.js';

/**
 * Redis when `REDIS_URL` is set, else the lowdb store in `DATA_DIR`. Each adapter is imported only when chosen, so
 * a lowdb install never loads ioredis and the other way round.
 *
 * @example
 * const storage = await openStorage(readConfig(process.env));
 */
export async function openStorage(config: Pick<StandaloneConfig, 'redisUrl' | 'dataDir' | 'redisKeyPrefix'>): Promise<Storage> {
  if (config.redisUrl) {
    const { redisStorage } = await import('@docevals/adapters/redis');
    return redisStorage({ url: config.redisUrl, ...(config.redisKeyPrefix ? { keyPrefix: config.redisKeyPrefix } : {}) });
  }
  const { lowdbStorage } = await import('@docevals/adapters/lowdb');
  return lowdbStorage({ dir: config.dataDir });
}

/** Where the data lives, for the start-up message (a Redis URL without its password). */
export function describeStorage(config: Pick<StandaloneConfig, 'redisUrl' | 'dataDir'>): string {
  if (!config.redisUrl) return `lowdb in ${config.dataDir}`;
  try {
    const url = new URL(config.redisUrl);
    if (url.password) url.password = '***';
    return `Redis at ${url.toString()}`;
  } catch {
    return 'Redis';
  }
}
