/**
 * A batch's calls in the fleet's in-flight set (docs/workers.md, Cancel): entered together before the first starts,
 * refused once the job's cancel flag is set, and every entry gone after the batch's last step (a cancel waits on
 * that set).
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
  it('the first call enters the batch\'s documents from it on, in one step; later calls send nothing; the last step leaves all', async () => {
    const { fleet, entries, inFlight } = await setUp(['a', 'b', 'c']);
    const steps: unknown[][] = [];
    const step = fleet.step.bind(fleet);
    fleet.step = (...args) => (steps.push(args), step(...args));
    expect(await entries.beforeCall('a')).toBe(true);
    expect(await inFlight()).toEqual(['w:b0:1:a', 'w:b0:1:b', 'w:b0:1:c']);
    expect(await entries.beforeCall('b')).toBe(true);
    expect(await entries.beforeCall('c')).toBe(true);
    expect(steps).toHaveLength(1);
    const answer = await entries.last([['a', 'succeeded'], ['b', 'succeeded'], ['c', 'failed']]);
    expect(answer).toEqual({ entered: false, left: 0 });
    expect(steps).toHaveLength(2);
    expect(await inFlight()).toEqual([]);
  });

  it('a batch whose first documents were not called (written before a re-run) enters only those from its first call on', async () => {
    const { entries, inFlight } = await setUp(['a', 'b', 'c']);
    expect(await entries.beforeCall('b')).toBe(true);
    expect(await inFlight()).toEqual(['w:b0:1:b', 'w:b0:1:c']);
    await entries.last([['a', 'succeeded'], ['b', 'succeeded'], ['c', 'succeeded']]);
    expect(await inFlight()).toEqual([]);
  });

  it('after the cancel flag no call of a batch not yet entered starts; what a batch entered before it stays in flight until its last step', async () => {
    const { fleet, data, entries, inFlight } = await setUp(['a', 'b']);
    const later = batchEntries(fleet, 'w:b1:1', data);
    expect(await entries.beforeCall('a')).toBe(true);
    await fleet.cancel(data.job_id);
    // The cancel waits on the entered batch (its worker aborts it on the announcement); a batch entering now is refused.
    expect(await later.beforeCall('a')).toBe(false);
    expect(await later.beforeCall('b')).toBe(false);
    expect(await inFlight()).toEqual(['w:b0:1:a', 'w:b0:1:b']);
    await later.last([]);
    expect(await inFlight()).toEqual(['w:b0:1:a', 'w:b0:1:b']);
    await entries.last([['a', 'succeeded']]);
    expect(await inFlight()).toEqual([]);
  });

  it('documents entered and then skipped (the batch aborted) leave with the last step', async () => {
    const { entries, inFlight } = await setUp(['a', 'b']);
    expect(await entries.beforeCall('a')).toBe(true);
    // The batch's signal aborts: b never gets its turn.
    expect(await entries.last([['a', 'succeeded']])).toEqual({ entered: false, left: 1 });
    expect(await inFlight()).toEqual([]);
  });
});
