import { DocevalsError } from '../errors.js';
import type { RecordCollection, StoredRecordBase, Versioned } from '../storage.js';

/** Result of a mutation step: the new record to write, or a value to return without writing. */
export type Mutation<T, R> = { write: T; result: R } | { skip: true; result: R };

/**
 * Read-modify-write with compare-and-set: reads the record, calls `mutate` (synchronous, so nothing else runs
 * between the read and the decision), and replaces it only if its version did not move; otherwise reads again and
 * retries. `mutate` may throw a DocevalsError to refuse (nothing is written).
 *
 * @returns `null` when the record does not exist, else what `mutate` returned as `result` with the new version.
 * @example
 * await updateRecord(storage.evaluations, org, id, (rec) => ({ write: { ...rec, name: 'x' }, result: undefined }));
 */
export async function updateRecord<T extends StoredRecordBase, R>(
  collection: RecordCollection<T>,
  organizationId: string,
  id: string,
  mutate: (current: T, version: number) => Mutation<T, R>,
  options: { attempts?: number } = {},
): Promise<{ result: R; record: Versioned<T> } | null> {
  const attempts = options.attempts ?? 200;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const current = await collection.get(organizationId, id);
    if (!current) return null;
    const step = mutate(current.value, current.version);
    if ('skip' in step) return { result: step.result, record: current };
    const written = await collection.replace(step.write, current.version);
    if (written) return { result: step.result, record: written };
    // Lost the race: back off a little (more with each attempt) so that contenders spread out.
    if (attempt > 2) await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
  }
  throw new DocevalsError(
    'storage_error',
    `Gave up writing ${id} after ${attempts} attempts: too many concurrent writers on the same record.`,
  );
}
