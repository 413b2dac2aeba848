import { memoryStorage } from '../support/memory-storage.js';
import { describe, expect, it } from 'vitest';
import { createDocevals } from '@docevals/core';
import { eventStreamSlots } from '@docevals/core/internal';

describe("a service's one cap on open event streams (REST and tRPC share it)", () => {
  it('is one count per service instance: its default, what createDocevals sets, another service apart', () => {
    const plain = createDocevals({ storage: memoryStorage() });
    const capped = createDocevals({ storage: memoryStorage(), limits: { maxEventStreamsPerOrganization: 2 } });
    expect(eventStreamSlots(plain).max).toBe(20);
    expect(eventStreamSlots(plain)).toBe(eventStreamSlots(plain));
    const slots = eventStreamSlots(capped);
    expect(slots.max).toBe(2);
    const held = [slots.take('org_a'), slots.take('org_a')];
    expect(() => slots.take('org_a')).toThrow(expect.objectContaining({ code: 'rate_limited', retry_after: 5 }));
    expect(eventStreamSlots(plain).acquire('org_a')).not.toBeNull();
    expect(slots.acquire('org_b')).not.toBeNull();
    held[0]!();
    held[0]!(); // a second release frees nothing more
    expect(slots.count('org_a')).toBe(1);
    expect(slots.acquire('org_a')).not.toBeNull();
  });

  it("a transport's option sets the one cap; a different value for the same service is a TypeError naming both", () => {
    const docevals = createDocevals({ storage: memoryStorage() });
    const slots = eventStreamSlots(docevals);
    slots.configure(5, 'createRestHandler({ limits })');
    slots.configure(5, 'createDocevalsRouter');
    expect(slots.max).toBe(5);
    expect(() => slots.configure(6, 'createDocevalsRouter')).toThrow(/createDocevalsRouter: maxEventStreamsPerOrganization 6 differs from the 5 set by createRestHandler/);
    expect(slots.max).toBe(5);
    const fromCore = eventStreamSlots(createDocevals({ storage: memoryStorage(), limits: { maxEventStreamsPerOrganization: 0 } }));
    expect(() => fromCore.configure(20, 'createRestHandler({ limits })')).toThrow(/set by createDocevals/);
    expect(() => slots.configure(-1, 'createDocevalsRouter')).toThrow(TypeError);
  });

  it('counts nothing with 0 (no cap)', () => {
    const slots = eventStreamSlots(createDocevals({ storage: memoryStorage(), limits: { maxEventStreamsPerOrganization: 0 } }));
    for (let i = 0; i < 100; i++) expect(slots.acquire('org_a')).not.toBeNull();
  });
});
