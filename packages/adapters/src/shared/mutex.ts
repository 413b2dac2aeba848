/** Runs tasks one at a time, in call order. */
export interface Mutex {
  run<T>(task: () => T | Promise<T>): Promise<T>;
}

/**
 * A promise-chain mutex: each task starts when the previous one settled (fulfilled or rejected), so one failing
 * write never wedges the ones queued behind it.
 *
 * @example
 * const lock = createMutex();
 * await lock.run(async () => { const v = read(); await write(v + 1); });
 */
export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => T | Promise<T>): Promise<T> {
      const result = tail.then(task);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
