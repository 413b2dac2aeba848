import { describe, expect, it } from 'vitest';
import { createFairMutex } from '../src/shared/mutex.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("lowdb's write lock: one task at a time, waiting tasks taken round-robin by organization", () => {
  it("serves a newcomer's task after at most one task of each key already waiting, each key in call order", async () => {
    const lock = createFairMutex();
    const order: string[] = [];
    let inside = 0;
    const task = (name: string) => async () => {
      inside += 1;
      expect(inside).toBe(1);
      await tick();
      order.push(name);
      inside -= 1;
    };
    const runs = [
      ...['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => lock.run(task(name), 'org_a')),
      lock.run(task('b1'), 'org_b'),
      lock.run(task('b2'), 'org_b'),
      lock.run(task('none')),
    ];
    await Promise.all(runs);
    // a1 was running; then the rotation a, b, '' in order of arrival, a served key going to its end.
    expect(order).toEqual(['a1', 'a2', 'b1', 'none', 'a3', 'b2', 'a4', 'a5']);
  });

  it("a failing task neither wedges the lock nor another's result; idle() waits for everything queued", async () => {
    const lock = createFairMutex();
    const failed = lock.run(async () => {
      await tick();
      throw new Error('disk full');
    }, 'org_a');
    const after = lock.run(() => 'written', 'org_b');
    let idle = false;
    const idling = lock.idle().then(() => (idle = true));
    await expect(failed).rejects.toThrow('disk full');
    expect(await after).toBe('written');
    await idling;
    expect(idle).toBe(true);
    expect(await lock.run(() => 1)).toBe(1);
    await lock.idle();
  });
});
