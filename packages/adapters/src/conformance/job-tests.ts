import { type IterationEventRecord, type IterationRecord, type JobRecord, type RecordCollection, type StoredRecordBase } from '@docevals/core';
import { JOBS_SCOPE } from '@docevals/core/internal';
import { expect, it } from 'vitest';
import { rejection, type ConformanceContext } from './context.js';
import { at, iterationRecord, ORG_A, ORG_B } from './fixtures.js';

function eventRecord(org: string, parent: string, id: string, type: IterationEventRecord['type'] = 'document'): IterationEventRecord {
  return {
    id,
    organization_id: org,
    parent_id: parent,
    job_id: id.split('.')[0]!,
    type,
    document_id: type === 'document' ? id.split('.')[1]! : null,
    similarity: type === 'document' ? 0.5 : null,
    error: null,
    summary: type === 'document' ? null : { status: type },
    created_at: at(0),
    updated_at: at(0),
  };
}

function jobRecord(org: string, iterationId: string): JobRecord {
  return {
    id: `${org}.${iterationId}`,
    organization_id: JOBS_SCOPE,
    iteration_organization_id: org,
    evaluation_id: 'eval_1',
    iteration_id: iterationId,
    job_id: 'job_1',
    created_at: at(0),
    updated_at: at(0),
  };
}

/**
 * What iterations as jobs need of a store (docs/spec/jobs.md): the `events` child collection is insert-only and
 * ordered (a stream resumes with `list(after)`), the `jobs` collection lists active jobs of every organization under
 * the reserved scope, and a lease on an iteration record is taken by exactly one of many concurrent runners.
 */
export function jobTests(ctx: ConformanceContext): void {
  for (const group of [eventAndJobListTests, capAndLeaseTests]) group(ctx);
}

/** Events written once, and the jobs listed under the reserved scope. */
function eventAndJobListTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('events: an id is written once whatever the number of concurrent writers, and list(after) resumes in order', async () => {
    const { events } = await ctx.open();
    const ids = Array.from({ length: 30 }, (_, i) => `job_1.doc_${String(i).padStart(2, '0')}`);
    for (const id of ids.slice(0, 10)) expect(await events.put(eventRecord(ORG_A, 'iter_1', id), 0)).not.toBeNull();
    // 20 writers race for the same event id: one wins, the others are told it exists.
    const raced = await Promise.all(Array.from({ length: 20 }, () => events.put(eventRecord(ORG_A, 'iter_1', ids[10]!), 0)));
    expect(raced.filter((r) => r !== null)).toHaveLength(1);
    for (const id of ids.slice(11)) await events.put(eventRecord(ORG_A, 'iter_1', id), 0);
    await events.put(eventRecord(ORG_A, 'iter_1', 'job_1.final', 'completed'), 0);

    // A reader that stopped after the 12th event gets exactly the rest, in order, across pages.
    const seen: string[] = [];
    let after: string | undefined = ids[11];
    for (;;) {
      const page = await events.list(ORG_A, 'iter_1', { limit: 7, ...(after ? { after } : {}) });
      expect(page).not.toBeNull();
      seen.push(...page!.items.map((e) => e.id));
      if (!page!.has_more) break;
      after = page!.items[page!.items.length - 1]!.id;
    }
    expect(seen).toEqual([...ids.slice(12), 'job_1.final']);
    expect((await events.get(ORG_A, 'iter_1', 'job_1.final'))!.value.summary).toEqual({ status: 'completed' });
    // Another organization's iteration with the same id holds nothing of this one.
    expect((await events.list(ORG_B, 'iter_1', { limit: 10 }))!.items).toEqual([]);
    expect(await events.deleteAll(ORG_A, 'iter_1')).toBe(31);
  }, t);

  it('jobs: active jobs of every organization are listed under the reserved scope, and nowhere else', async () => {
    const { jobs } = await ctx.open();
    await jobs.insert(jobRecord(ORG_A, 'iter_a'));
    await jobs.insert(jobRecord(ORG_B, 'iter_b'));
    const page = await jobs.list(JOBS_SCOPE, { limit: 10, order: 'asc' });
    expect(page!.items.map((j) => j.iteration_organization_id).sort()).toEqual([ORG_A, ORG_B].sort());
    expect((await jobs.list(ORG_A, { limit: 10, order: 'asc' }))!.items).toEqual([]);
    const found = await jobs.get(JOBS_SCOPE, `${ORG_A}.iter_a`);
    expect(await jobs.delete(JOBS_SCOPE, found!.value.id, found!.version)).toBe(true);
    expect((await jobs.list(JOBS_SCOPE, { limit: 10, order: 'asc' }))!.items.map((j) => j.iteration_id)).toEqual(['iter_b']);
  }, t);
}

/** The capped insert and the lease taken by compare-and-set. */
function capAndLeaseTests(ctx: ConformanceContext): void {
  const t = ctx.timeout;

  it('jobs: of 30 concurrent capped inserts at cap 5, exactly 5 are stored; another organization keeps its own places', async () => {
    const { jobs } = await ctx.open();
    const cap = 5;
    const results = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => jobs.insertWithinCap(jobRecord(ORG_A, `iter_${i}`), cap)),
      ...Array.from({ length: 3 }, (_, i) => jobs.insertWithinCap(jobRecord(ORG_B, `iter_${i}`), cap)),
    ]);
    const storedA = results.slice(0, 30).filter((r) => r !== null);
    expect(storedA).toHaveLength(cap);
    expect(storedA.every((r) => r!.version === 1)).toBe(true);
    expect(results.slice(30).every((r) => r !== null)).toBe(true);
    const listed = async (org: string) =>
      (await jobs.list(JOBS_SCOPE, { limit: 100, order: 'asc', where: { iteration_organization_id: org } }))!.items.map((j) => j.id).sort();
    expect(await listed(ORG_A)).toEqual(storedA.map((r) => r!.value.id).sort());
    expect(await listed(ORG_B)).toHaveLength(3);

    // At the cap, one more is refused with nothing written; the same id again is a conflict, not a second place.
    expect(await jobs.insertWithinCap(jobRecord(ORG_A, 'iter_late'), cap)).toBeNull();
    expect(await jobs.get(JOBS_SCOPE, `${ORG_A}.iter_late`)).toBeNull();
    expect((await rejection(jobs.insertWithinCap(storedA[0]!.value, cap))).code).toBe('conflict');
    expect((await rejection(jobs.insertWithinCap(jobRecord(ORG_B, 'iter_0'), cap))).code).toBe('conflict');

    // A deleted record frees its place (a job ended), a replaced one keeps it.
    const first = storedA[0]!.value;
    const current = await jobs.get(JOBS_SCOPE, first.id);
    expect(await jobs.replace({ ...first, job_id: 'job_2' }, current!.version)).not.toBeNull();
    expect(await jobs.insertWithinCap(jobRecord(ORG_A, 'iter_late'), cap)).toBeNull();
    expect(await jobs.delete(JOBS_SCOPE, first.id)).toBe(true);
    const late = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.insertWithinCap(jobRecord(ORG_A, `iter_late_${i}`), cap)));
    expect(late.filter((r) => r !== null)).toHaveLength(1);
    // A plain insert counts too: the organization is now past the cap for a capped one.
    await jobs.insert(jobRecord(ORG_B, 'iter_plain_1'));
    await jobs.insert(jobRecord(ORG_B, 'iter_plain_2'));
    expect(await jobs.insertWithinCap(jobRecord(ORG_B, 'iter_9'), cap)).toBeNull();
    expect(await jobs.delete(JOBS_SCOPE, `${ORG_B}.iter_plain_1`)).toBe(true);
    expect(await jobs.insertWithinCap(jobRecord(ORG_B, 'iter_9'), cap)).not.toBeNull();

    // Records of another kind in another scope (the service keeps organization secrets here) are plain records.
    const records: RecordCollection<StoredRecordBase> = jobs;
    const other = { id: 'other_1', organization_id: 'docevals-secrets', updated_at: at(0), name: 'x' };
    expect((await records.insert(other)).version).toBe(1);
    expect(await records.delete('docevals-secrets', 'other_1')).toBe(true);
    expect(await records.get('docevals-secrets', 'other_1')).toBeNull();
  }, t);

  it('lease: of 20 runners taking an expired lease by compare-and-set, exactly one gets it', async () => {
    const { iterations } = await ctx.open();
    const base: IterationRecord = {
      ...iterationRecord(ORG_A, 'iter_lease'),
      status: 'running',
      finished_at: null,
      job: { id: 'job_1', selection: 'all', started_at: at(0) },
      lease: { owner: 'runner_dead', expires_at: at(0) }, // long expired
    };
    await iterations.insert(base);
    const take = async (owner: string) => {
      const current = await iterations.get(ORG_A, 'iter_lease');
      if (!current || Date.parse(current.value.lease?.expires_at ?? at(0)) > Date.now()) return null;
      const lease = { owner, expires_at: new Date(Date.now() + 60_000).toISOString() };
      return iterations.replace({ ...current.value, lease }, current.version);
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => take(`runner_${i}`)));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const stored = await iterations.get(ORG_A, 'iter_lease');
    expect(stored!.value.lease!.owner).toBe(winners[0]!.value.lease!.owner);
    expect(stored!.value.job).toEqual(base.job);
  }, t);
}
