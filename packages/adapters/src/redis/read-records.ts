import type { Versioned } from '@docevals/core';
import type { Redis } from 'ioredis';

/** Runs a pipeline and returns its replies, throwing the first command error. */
export async function execPipeline<R>(pipeline: ReturnType<Redis['pipeline']>): Promise<R[]> {
  const results = await pipeline.exec();
  if (!results) throw new Error('pipeline discarded');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply as R;
  });
}

/**
 * Reads the records (or children) stored at `recordKeys`, a hash each with `v` and `json`, in one round trip (one
 * HMGET, or a pipeline of them); null where a key holds none.
 */
export async function readVersioned<T>(client: Redis, recordKeys: readonly string[]): Promise<Array<Versioned<T> | null>> {
  if (recordKeys.length === 0) return [];
  let replies: Array<Array<string | null>>;
  if (recordKeys.length === 1) {
    replies = [await client.hmget(recordKeys[0]!, 'v', 'json')];
  } else {
    const pipeline = client.pipeline();
    for (const key of recordKeys) pipeline.hmget(key, 'v', 'json');
    replies = await execPipeline<Array<string | null>>(pipeline);
  }
  return replies.map(([version, json]) => (version === null || json === null ? null : { value: JSON.parse(json) as T, version: Number(version) }));
}
