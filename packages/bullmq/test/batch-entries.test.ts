/**
 * A batch's calls in the fleet's in-flight set (docs/workers.md, Cancel): each entered before it starts, the next one
 * while the current call runs, refused once the job's cancel flag is set, and every entry gone after the batch's
 * last step (a cancel waits on that set).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { batchEntries } from '../src/batch-entries.js';
import { Fleet, type DocumentJobData } from '../src/fleet.js';

const fleets: Fleet[] = [];
afterEach(async () => {
  await Promise.all(fleets.splice(0).map((f) => f.close()));
});

async function setUp(documents: string[]) {
  const fleet = new Fleet({ connection: inject('redisUrl'), prefix: `test-entries-${randomUUID()}`, log: () => undefined });
  fleets.push(fleet);
  const data: DocumentJobData = { organization_id: 'org', evaluation_id: 'e', iteration_id: 'i', job_id: 'job_1', document_ids: documents, model: 'm' };
  await fleet.redis.set(fleet.key('remaining', data.job_id), documents.length);
  const inFlight = async () => (await fleet.redis.smembers(fleet.key('inflight', data.job_id))).sort();
  return { fleet, data, inFlight, entries: batchEntries(fleet, 'w:b0:1', data) };
}

describe('batch entries', () => {
  it('the next call is entered while the current one runs; the previous leaves then; the last step leaves all', async () => {
    const { entries, inFlight } = await setUp(['a', 'b', 'c']);
    expect(await entries.beforeCall('a', 'b')).toBe(true);
    // a's call runs, b is entered already.
    expect(await inFlight()).toEqual(['w:b0:1:a', 'w:b0:1:b']);
    expect(await entries.beforeCall('b', 'c')).toBe(true);
    // a's call is over: it left with c's entry.
    expect(await inFlight()).toEqual(['w:b0:1:b', 'w:b0:1:c']);
    expect(await entries.beforeCall('c', undefined)).toBe(true);
    const answer = await entries.last([['a', 'succeeded'], ['b', 'succeeded'], ['c', 'failed']]);
    expect(answer).toEqual({ entered: false, left: 0 });
    expect(await inFlight()).toEqual([]);
  });

  it('after the cancel flag no call is entered; one entered before it may run, and nothing stays in flight', async () => {
    const { fleet, data, entries, inFlight } = await setUp(['a', 'b', 'c']);
    expect(await entries.beforeCall('a', 'b')).toBe(true);
    await fleet.cancel(data.job_id);
    // b was entered before the flag (the cancel waits for it); c's entry, sent after the flag, is refused.
    expect(await entries.beforeCall('b', 'c')).toBe(true);
    expect(await entries.beforeCall('c', undefined)).toBe(false);
    expect(await inFlight()).toEqual(['w:b0:1:b']);
    await entries.last([['a', 'succeeded']]);
    expect(await inFlight()).toEqual([]);
  });

  it('a document entered ahead and then skipped (the batch aborted) leaves with the last step', async () => {
    const { entries, inFlight } = await setUp(['a', 'b']);
    expect(await entries.beforeCall('a', 'b')).toBe(true);
    // The batch's signal aborts: b never gets its turn.
    expect(await entries.last([['a', 'succeeded']])).toEqual({ entered: false, left: 1 });
    expect(await inFlight()).toEqual([]);
  });
});
