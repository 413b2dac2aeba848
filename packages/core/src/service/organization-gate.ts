/**
 * At most `slots` pieces of heavy work at a time per organization (docs/spec/limits.md): a whole evaluation read, an
 * export streaming. Past that the work waits its turn (in order) instead of running alongside: one organization's
 * 16 parallel reads of a 10,000-document evaluation hold the event loop no longer than `slots` of them would, and
 * other organizations are never waiting for a slot of theirs.
 *
 * @example
 * const gate = new OrganizationGate(2);
 * const release = await gate.acquire('org_a');
 * try { await work(); } finally { release(); }
 */
export class OrganizationGate {
  readonly #slots: number;
  readonly #held = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new TypeError('OrganizationGate: slots is a positive integer.');
    this.#slots = slots;
  }

  /** Waits for a slot of `organizationId`; returns the function that gives it back (once; later calls do nothing). */
  async acquire(organizationId: string): Promise<() => void> {
    let state = this.#held.get(organizationId);
    if (!state) {
      state = { active: 0, waiting: [] };
      this.#held.set(organizationId, state);
    }
    if (state.active >= this.#slots) await new Promise<void>((resolve) => state.waiting.push(resolve));
    else state.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.waiting.shift();
      // The slot passes to the next in line as it is: `active` stays counted.
      if (next) next();
      else if (--state.active === 0) this.#held.delete(organizationId);
    };
  }

  /** Runs `work` in a slot of `organizationId`. */
  async run<T>(organizationId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(organizationId);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Slots in use and callers waiting, for `organizationId` (tests, stats). */
  usage(organizationId: string): { active: number; waiting: number } {
    const state = this.#held.get(organizationId);
    return { active: state?.active ?? 0, waiting: state?.waiting.length ?? 0 };
  }
}
