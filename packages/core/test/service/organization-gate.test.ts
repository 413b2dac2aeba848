import { describe, expect, it } from 'vitest';
import { OrganizationGate } from '../../src/service/organization-gate.js';

describe('OrganizationGate: heavy reads per organization', () => {
  it('runs at most `slots` at once per organization, the rest in order, and never holds up another organization', async () => {
    const gate = new OrganizationGate(2);
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const work = (name: string) => () =>
      new Promise<string>((resolve) => {
        order.push(`start ${name}`);
        gates.push(() => resolve(name));
      });
    const a = ['a1', 'a2', 'a3', 'a4'].map((name) => gate.run('org_a', work(name)));
    const b = gate.run('org_b', work('b1'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['start a1', 'start a2', 'start b1']);
    expect(gate.usage('org_a')).toEqual({ active: 2, waiting: 2 });
    gates[0]!(); // a1 ends: a3 takes its slot
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['start a1', 'start a2', 'start b1', 'start a3']);
    for (let i = 1; i < 5; i++) {
      gates[i]!();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    gates[4]?.();
    expect(await Promise.all([...a, b])).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(gate.usage('org_a')).toEqual({ active: 0, waiting: 0 });
  });

  it('gives a slot back once however often release is called, and when the work throws', async () => {
    const gate = new OrganizationGate(1);
    const release = await gate.acquire('org');
    release();
    release();
    expect(gate.usage('org')).toEqual({ active: 0, waiting: 0 });
    await expect(gate.run('org', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.usage('org')).toEqual({ active: 0, waiting: 0 });
    expect(() => new OrganizationGate(0)).toThrow(TypeError);
  });
});
