/**
 * lowdb's write lock (issue 26): writes of one key (the organization a record belongs to) run one at a time in call
 * order; writes of different keys run at once, so one organization's queue of writes (its running iterations'
 * predictions and events, each held through its fsyncs) never delays another's; an `exclusive` task runs alone.
 */
export interface KeyedMutex {
  /** Runs `task` once the tasks of `key` called before it have settled (and any `exclusive` task called before it). */
  run<T>(task: () => T | Promise<T>, key?: string): Promise<T>;
  /** Runs `task` alone: after every task called before it has settled, and before any called after it starts. */
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
  /** Resolves once no task runs and none waits (tasks queued meanwhile included). */
  idle(): Promise<void>;
}

/**
 * A {@link KeyedMutex} of promise chains: one chain per key, and a barrier that the `exclusive` tasks are. A failing
 * task never wedges the ones behind it (each waits for the previous one to settle, fulfilled or rejected).
 *
 * @example
 * const lock = createKeyedMutex();
 * await Promise.all([lock.run(writeA1, 'org_a'), lock.run(writeA2, 'org_a'), lock.run(writeB1, 'org_b')]); // A1 and B1 at once, then A2
 */
export function createKeyedMutex(): KeyedMutex {
  /** The last task of each key that has not settled yet. */
  const tails = new Map<string, Promise<void>>();
  /** Every task not settled yet (what `exclusive` and `idle` wait for). */
  const unsettled = new Set<Promise<void>>();
  /** The last exclusive task: tasks called after it start once it has settled. */
  let barrier: Promise<void> = Promise.resolve();

  const schedule = <T>(after: Promise<unknown>, task: () => T | Promise<T>, key: string | null): Promise<T> => {
    const result = after.then(task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    unsettled.add(settled);
    if (key !== null) tails.set(key, settled);
    void settled.then(() => {
      unsettled.delete(settled);
      if (key !== null && tails.get(key) === settled) tails.delete(key);
    });
    return result;
  };

  return {
    run(task, key = '') {
      const previous = tails.get(key);
      return schedule(previous ? Promise.all([previous, barrier]) : barrier, task, key);
    },
    exclusive(task) {
      const result = schedule(Promise.all([...unsettled, barrier]), task, null);
      barrier = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
    async idle() {
      while (unsettled.size > 0) await Promise.all([...unsettled]);
    },
  };
}
