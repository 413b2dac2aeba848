/**
 * A separate process appending to one evaluation record through its own Redis connection, for the cross-process
 * test: `node --import tsx redis-writer.ts <url> <keyPrefix> <org> <evaluationId> <appends> <tag> [concurrency]`.
 * Each append is an `updateRecord` (read, then compare-and-set replace); prints `{"appended":N,"retries":R}` (R: compare-and-set races lost and retried).
 */
import { updateRecord } from '@docevals/core/internal';
import { redisStorage } from '../../src/redis/index.js';

const [url, keyPrefix, org, evaluationId, appendsArg, tag, concurrencyArg = '4'] = process.argv.slice(2);
const appends = Number(appendsArg);
const concurrency = Number(concurrencyArg);
const storage = redisStorage({ url, keyPrefix });

let next = 0;
let attempts = 0;
async function worker(): Promise<void> {
  while (next < appends) {
    const n = next++;
    const done = await updateRecord(storage.evaluations, org, evaluationId, (current) => {
      attempts++; // once per read; more reads than appends = compare-and-set races lost and retried
      return {
        write: { ...current, iteration_ids: [...current.iteration_ids, `${tag}-${n}`], updated_at: new Date().toISOString() },
        result: undefined,
      };
    });
    if (!done) throw new Error(`evaluation ${evaluationId} not found`);
  }
}

try {
  await Promise.all(Array.from({ length: concurrency }, worker));
  process.stdout.write(JSON.stringify({ appended: appends, retries: attempts - appends }) + '\n');
} finally {
  await storage.close();
}
