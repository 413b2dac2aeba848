import { DocevalsError } from '../errors.js';
import type { ChildCollection, ChildPut, ChildRecordBase, RecordCollection, StoredRecordBase, Versioned } from '../storage.js';

/** Result of a mutation step: the new record to write, or a value to return without writing. */
export type Mutation<T, R> = { write: T; result: R } | { skip: true; result: R };

/**
 * The one retry policy of every compare-and-set loop in the service: up to 200 attempts, backing off a little
 * (more with each attempt, with jitter) after the third lost race, then a `storage_error` saying why.
 */
export const CAS_ATTEMPTS = 200;

/**
 * Runs `attempt` until it returns something other than `undefined` (a lost race), under {@link CAS_ATTEMPTS}.
 *
 * @example
 * const written = await retryCompareAndSet('doc_1', async () => (await collection.replace(next, version)) ?? undefined);
 */
export async function retryCompareAndSet<R>(what: string, attempt: () => Promise<R | undefined>): Promise<R> {
  for (let i = 0; i < CAS_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
    // Lost the race: back off a little (more with each attempt) so that contenders spread out.
    if (i > 2) await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, i * 2)));
  }
  throw new DocevalsError(
    'storage_error',
    `Gave up writing ${what} after ${CAS_ATTEMPTS} attempts: too many concurrent writers on the same record.`,
  );
}

/**
 * Read-modify-write with compare-and-set: reads the record, calls `mutate` (synchronous, so nothing else runs
 * between the read and the decision), and replaces it only if its version did not move; otherwise reads again and
 * retries ({@link retryCompareAndSet}). `mutate` may throw a DocevalsError to refuse (nothing is written).
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
): Promise<{ result: R; record: Versioned<T> } | null> {
  return retryCompareAndSet(id, async () => {
    const current = await collection.get(organizationId, id);
    if (!current) return null;
    const step = mutate(current.value, current.version);
    if ('skip' in step) return { result: step.result, record: current };
    const written = await collection.replace(step.write, current.version);
    return written ? { result: step.result, record: written } : undefined;
  });
}

/**
 * {@link updateRecord} for one child record (a document, a prediction): the same compare-and-set on its version.
 *
 * @example
 * await updateChild(storage.documents, org, evaluationId, fileId, (doc) => ({ write: { ...doc, filename: 'a' }, result: undefined }));
 */
export async function updateChild<T extends ChildRecordBase, R>(
  collection: ChildCollection<T>,
  organizationId: string,
  parentId: string,
  id: string,
  mutate: (current: T, version: number) => Mutation<T, R>,
): Promise<{ result: R; record: Versioned<T> } | null> {
  return retryCompareAndSet(id, async () => {
    const current = await collection.get(organizationId, parentId, id);
    if (!current) return null;
    const step = mutate(current.value, current.version);
    if ('skip' in step) return { result: step.result, record: current };
    const written = await collection.put(step.write, current.version);
    return written ? { result: step.result, record: written } : undefined;
  });
}

/**
 * {@link updateChild} for many children of one parent, written together with `putMany` (one commit per call):
 * reads them (`getMany`), asks `decide` what to do with each (`null` for a child that does not exist), and writes
 * every `write` in one all-or-nothing compare-and-set. `decide` may read other records (they are read after the
 * children, which is what a refresh needs) but must not write. When some versions moved, nothing was written:
 * only those children are read and decided again, the others keep their decision (their versions still held), and
 * the batch is tried again ({@link retryCompareAndSet}). `decide` may throw a DocevalsError to refuse (nothing is
 * written). Keep `ids` to a batch's size (a few hundred) and without repeats.
 *
 * @returns the `result` of each id's last decision, in the order of `ids`.
 * @example
 * await updateChildren(storage.documents, org, evaluationId, ['file_1', 'file_2'], (docs) =>
 *   docs.map((doc) => (doc ? { write: { ...doc, filename: doc.filename.toLowerCase() }, result: true } : { skip: true, result: false })));
 */
export async function updateChildren<T extends ChildRecordBase, R>(
  collection: ChildCollection<T>,
  organizationId: string,
  parentId: string,
  ids: readonly string[],
  decide: (children: Array<T | null>, ids: string[]) => Array<Mutation<T, R>> | Promise<Array<Mutation<T, R>>>,
): Promise<R[]> {
  const results = new Array<R>(ids.length);
  const planned = new Map<number, ChildPut<T>>();
  let todo = ids.map((_, i) => i);
  await retryCompareAndSet(`${ids.length} children of ${parentId}`, async () => {
    const todoIds = todo.map((i) => ids[i]!);
    const current = await collection.getMany(organizationId, parentId, todoIds);
    const steps = await decide(current.map((c) => c?.value ?? null), todoIds);
    todo.forEach((index, k) => {
      const step = steps[k]!;
      results[index] = step.result;
      if ('skip' in step) planned.delete(index);
      else planned.set(index, { record: step.write, expectedVersion: current[k]?.version ?? 0 });
    });
    const order = [...planned.keys()];
    if (order.length === 0) return true;
    const written = await collection.putMany(order.map((i) => planned.get(i)!));
    if (written.ok) return true;
    todo = written.conflicts.map((k) => order[k]!);
    return undefined;
  });
  return results;
}
