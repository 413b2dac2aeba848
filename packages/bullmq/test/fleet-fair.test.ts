/**
 * The fair turns' priorities (fleet.ts, FAIR): taken and, on an idle queue, started over in one Lua script. Real
 * Redis, a real BullMQ queue whose jobs are added and removed between the calls.
 */
import { Queue } from 'bullmq';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Fleet } from '../src/fleet.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open() {
  const connection = inject('redisUrl');
  const prefix = `fleetfair${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const fleet = new Fleet({ connection, prefix, log: () => undefined });
  cleanups.push(() => fleet.close());
  const queue = new Queue('turns', { connection: { url: connection }, prefix });
  cleanups.push(() => queue.close());
  return { fleet, queue };
}

describe('Fleet.fairPriorities', () => {
  it('takes turns while jobs wait, and starts over once the queue is empty', async () => {
    const { fleet, queue } = await open();
    expect(await fleet.fairPriorities(queue, 'org_a', 3)).toBe(1);
    await queue.addBulk([1, 2, 3].map((priority) => ({ name: 'a', data: {}, opts: { priority } })));
    // B starts level with A's first job; A's next batch after its last.
    expect(await fleet.fairPriorities(queue, 'org_b', 2)).toBe(1);
    expect(await fleet.fairPriorities(queue, 'org_a', 1)).toBe(4);
    // A delayed job alone keeps the turns too.
    await queue.drain(false);
    const delayed = await queue.add('later', {}, { delay: 60_000 });
    expect(await fleet.fairPriorities(queue, 'org_a', 1)).toBe(5);
    await delayed.remove();
    // Nothing waiting, prioritized, active or delayed: the turns start over, in the same call.
    expect(await fleet.fairPriorities(queue, 'org_a', 2)).toBe(1);
    expect(await fleet.fairPriorities(queue, 'org_b', 1)).toBe(1);
  });

  it('40 concurrent calls of one organization while a job waits get 40 distinct, consecutive turns', async () => {
    const { fleet, queue } = await open();
    await queue.add('held', {}, { priority: 1 });
    expect(await fleet.fairPriorities(queue, 'org_first', 1)).toBe(1);
    const firsts = await Promise.all(Array.from({ length: 40 }, () => fleet.fairPriorities(queue, 'org_same', 1)));
    // Each call reads and writes the organization's last turn in one script: no two get the same.
    expect([...firsts].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });
});
