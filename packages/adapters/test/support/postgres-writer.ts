/**
 * A separate process writing to a Postgres store, for the cross-process tests:
 * `node --import tsx postgres-writer.ts <url> <schema> <org> <tag> <count|forever> [concurrency]`.
 * Each step appends `<tag>-<n>` to evaluation `eval_pg` (an `updateRecord`: read, then compare-and-set), puts a
 * prediction `<tag>-<n>` into iteration `it_pg`, retains file `file_<tag>-<n>`, and then prints `ack <tag>-<n>`:
 * a printed step is acknowledged. At the end prints `{"appended":N,"retries":R}`.
 */
import { updateRecord } from '@docevals/core/internal';
import { postgresStorage } from '../../src/postgres/index.js';
import { pgPrediction } from './postgres-fixtures.js';

const [url, schema, org, tag, countArg, concurrencyArg = '1'] = process.argv.slice(2);
const count = countArg === 'forever' ? Infinity : Number(countArg);
const storage = postgresStorage({ connectionString: url, schema });

let next = 0;
let attempts = 0;
async function worker(): Promise<void> {
  while (next < count) {
    const n = next++;
    const name = `${tag}-${n}`;
    const done = await updateRecord(storage.evaluations, org, 'eval_pg', (current) => {
      attempts++;
      return {
        write: { ...current, iteration_ids: [...current.iteration_ids, name], updated_at: new Date().toISOString() },
        result: undefined,
      };
    });
    if (!done) throw new Error('evaluation eval_pg not found');
    await storage.predictions.put(pgPrediction(org, 'it_pg', name, (n % 10) / 10));
    await storage.files.retain(org, `file_${name}`, { bytes: new Uint8Array([n % 256, 1, 2]), mime_type: 'application/pdf' });
    process.stdout.write(`ack ${name}\n`);
  }
}

try {
  await Promise.all(Array.from({ length: Number(concurrencyArg) }, worker));
  process.stdout.write(JSON.stringify({ appended: count, retries: attempts - count }) + '\n');
} finally {
  await storage.close();
}
