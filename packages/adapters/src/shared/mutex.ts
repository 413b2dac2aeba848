/** Runs tasks one at a time. */
export interface Mutex {
  /** Runs `task` alone; tasks of one `key` start in call order (see each implementation for the order between keys). */
  run<T>(task: () => T | Promise<T>, key?: string): Promise<T>;
}

/** A {@link Mutex} that also says when everything queued so far has run. */
export interface FairMutex extends Mutex {
  /** Resolves once no task runs and none waits (tasks queued meanwhile included). */
  idle(): Promise<void>;
}

/**
 * A promise-chain mutex: each task starts when the previous one settled (fulfilled or rejected), so one failing
 * write never wedges the ones queued behind it. Tasks run in call order, whatever their key.
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

/**
 * A mutex whose waiting tasks are taken round-robin by key (lowdb's write lock, keyed by organization): a task of
 * one key waits for the running task and at most one task of each other key that is waiting, not for another key's
 * whole queue. Tasks of one key start in call order; a task without a key queues under `''` like any other key. As
 * {@link createMutex}, a failing task never wedges the ones behind it.
 *
 * @example
 * const lock = createFairMutex();
 * await Promise.all([lock.run(writeA1, 'org_a'), lock.run(writeA2, 'org_a'), lock.run(writeB1, 'org_b')]); // A1, B1, A2
 */
export function createFairMutex(): FairMutex {
  // Waiting starts per key; the Map's order is the rotation (a served key that still waits goes to its end).
  const queues = new Map<string, Array<() => void>>();
  let running = false;
  const idleWaiters: Array<() => void> = [];
  const next = () => {
    const first = queues.entries().next();
    if (first.done) {
      running = false;
      for (const resolve of idleWaiters.splice(0)) resolve();
      return;
    }
    const [key, queue] = first.value;
    const start = queue.shift()!;
    queues.delete(key);
    if (queue.length > 0) queues.set(key, queue);
    start();
  };
  return {
    run<T>(task: () => T | Promise<T>, key = ''): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () => void Promise.resolve().then(task).then(resolve, reject).finally(next);
        if (!running) {
          running = true;
          start();
          return;
        }
        const queue = queues.get(key);
        if (queue) queue.push(start);
        else queues.set(key, [start]);
      });
    },
    idle: () => (running ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
  };
}
