/**
 * Slots shared fairly between keys (organizations): at most `slots` functions run at once; when all are taken,
 * waiters queue per key and a freed slot goes to the next key in turn (round-robin), first come first served within
 * a key. So one key's backlog delays another key's first call by at most one call per slot.
 */
export class FairSlots {
  private free: number;
  /** Waiters by key; the Map's order is the turn (a key served goes to the back). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(readonly slots: number) {
    this.free = Math.max(1, Math.floor(slots));
  }

  /**
   * Runs `fn` in a slot taken for `key`. `signal` aborted while waiting: `fn` runs at once without a slot (it is
   * expected to see the signal and return without work).
   */
  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.free > 0 && this.waiting.size === 0) this.free--;
    else if (!(await this.wait(key, signal))) return fn();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Waiters now, for tests and a host's health detail. */
  get queued(): number {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    return count;
  }

  private wait(key: string, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', abort);
        resolve(true);
      };
      const abort = () => {
        const list = this.waiting.get(key);
        const index = list?.indexOf(grant) ?? -1;
        if (list && index >= 0) {
          list.splice(index, 1);
          if (list.length === 0) this.waiting.delete(key);
        }
        resolve(false);
      };
      signal?.addEventListener('abort', abort, { once: true });
      const list = this.waiting.get(key);
      if (list) list.push(grant);
      else this.waiting.set(key, [grant]);
    });
  }

  private release(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.free++;
      return;
    }
    const [key, list] = next.value;
    const grant = list.shift()!;
    // The key served goes to the back of the turn.
    this.waiting.delete(key);
    if (list.length > 0) this.waiting.set(key, list);
    grant();
  }
}
