import { describe, expect, it } from 'vitest';
import { createKeyedMutex } from '../src/shared/mutex.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("lowdb's write lock: one task at a time per organization, organizations side by side, exclusive tasks alone", () => {
  it("runs another key's task at once beside a key's queue, each key in call order and one at a time", async () => {
    const lock = createKeyedMutex();
    const order: string[] = [];
    const inside = new Map<string, number>();
    let most = 0;
    const task = (name: string, key: string) => async () => {
      inside.set(key, (inside.get(key) ?? 0) + 1);
      expect(inside.get(key)).toBe(1);
      most = Math.max(most, [...inside.values()].reduce((a, b) => a + b, 0));
      order.push(`${name} start`);
      await tick();
      order.push(`${name} end`);
      inside.set(key, inside.get(key)! - 1);
    };
    const runs = [
      ...['a1', 'a2', 'a3'].map((name) => lock.run(task(name, 'org_a'), 'org_a')),
      lock.run(task('b1', 'org_b'), 'org_b'),
      lock.run(task('b2', 'org_b'), 'org_b'),
    ];
    await Promise.all(runs);
    // b1 does not wait behind org_a's queue: it starts before a1 ends.
    expect(order.indexOf('b1 start')).toBeLessThan(order.indexOf('a1 end'));
    expect(order.filter((e) => e.startsWith('a'))).toEqual(['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
    expect(order.filter((e) => e.startsWith('b'))).toEqual(['b1 start', 'b1 end', 'b2 start', 'b2 end']);
    expect(most).toBe(2);
  });

  it('an exclusive task waits for every task called before it and holds back every task called after it', async () => {
    const lock = createKeyedMutex();
    const order: string[] = [];
    let running = 0;
    const task = (name: string) => async () => {
      running++;
      order.push(`${name} start (${running})`);
      await tick();
      running--;
      order.push(`${name} end`);
    };
    const runs = [lock.run(task('a1'), 'org_a'), lock.run(task('b1'), 'org_b'), lock.exclusive(task('x')), lock.run(task('a2'), 'org_a'), lock.run(task('c1'), 'org_c')];
    await Promise.all(runs);
    const x = order.indexOf('x start (1)');
    expect(x).toBeGreaterThan(order.indexOf('a1 end'));
    expect(x).toBeGreaterThan(order.indexOf('b1 end'));
    expect(order.indexOf('x end')).toBe(x + 1);
    expect(order.slice(x + 2).filter((e) => e.includes('start'))).toHaveLength(2);
  });

  it("a failing task neither wedges the lock nor another's result; idle() waits for everything queued", async () => {
    const lock = createKeyedMutex();
    const failed = lock.run(async () => {
      await tick();
      throw new Error('disk full');
    }, 'org_a');
    const after = lock.run(() => 'written', 'org_a');
    const failedAlone = lock.exclusive(() => Promise.reject(new Error('no space')));
    const later = lock.run(() => 'later', 'org_b');
    let idle = false;
    const idling = lock.idle().then(() => (idle = true));
    await expect(failed).rejects.toThrow('disk full');
    expect(await after).toBe('written');
    await expect(failedAlone).rejects.toThrow('no space');
    expect(await later).toBe('later');
    await idling;
    expect(idle).toBe(true);
    expect(await lock.run(() => 1)).toBe(1);
    await lock.idle();
  });
});
