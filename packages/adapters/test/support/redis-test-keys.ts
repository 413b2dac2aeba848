import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A keyPrefix no other test (or run) uses, so test files share one Redis without colliding. */
export function uniqueKeyPrefix(label = 'test'): string {
  return `docevals-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix` (SCAN, fine in tests; the adapter itself never scans the keyspace). */
export async function deleteKeys(client: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Keys under `prefix`, sorted (for asserting the documented layout). */
export async function listKeys(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
