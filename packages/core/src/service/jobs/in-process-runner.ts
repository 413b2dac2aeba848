import type { IterationRef, JobRunner, JobWork } from './contract.js';

/** How long a cancel waits for the run to stop (calls in flight aborted, events of what it saved written). */
const CANCEL_WAIT_MS = 2_000;

const keyOf = (ref: IterationRef) => `${ref.organization_id}\u0000${ref.iteration_id}`;

/**
 * The embedded runner: FIFO, at most `maxRunningIterations` jobs at once in this process. `start()` resumes the
 * store's unfinished jobs and scans again every third of the lease, so a job whose runner died is taken over.
 *
 * @example
 * const docevals = createDocevals({ storage, jobs: { maxRunningIterations: 2 } }); // uses it by default
 * // or explicitly, e.g. to wrap it:
 * createDocevals({ storage, jobs: { runner: (work) => inProcessJobRunner(work, { maxRunningIterations: 2 }) } });
 */
export function inProcessJobRunner(
  work: JobWork,
  options: { maxRunningIterations: number; onError?: (error: unknown) => void },
): JobRunner {
  return new InProcessRunner(work, options);
}

class InProcessRunner implements JobRunner {
  private readonly max: number;
  private readonly onError: (error: unknown) => void;
  private readonly queue: IterationRef[] = [];
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly work: JobWork,
    options: { maxRunningIterations: number; onError?: (error: unknown) => void },
  ) {
    this.max = Math.max(1, Math.floor(options.maxRunningIterations));
    this.onError = options.onError ?? ((error: unknown) => console.error('[docevals/jobs]', error));
  }

  enqueue(ref: IterationRef): void {
    if (this.closed) return;
    const key = keyOf(ref);
    if (this.running.has(key) || this.queue.some((q) => keyOf(q) === key)) return;
    this.queue.push(ref);
    this.pump();
  }

  async cancel(ref: IterationRef): Promise<void> {
    const key = keyOf(ref);
    const index = this.queue.findIndex((q) => keyOf(q) === key);
    if (index >= 0) this.queue.splice(index, 1);
    const run = this.running.get(key);
    if (!run) return;
    run.controller.abort('cancelled');
    // The run stops at once (calls in flight are aborted) and writes the events of what it saved; waited for, so
    // that they come before the final event. Bounded: a document sleeping before a retry stops at its next step.
    await Promise.race([run.done, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref?.())]);
  }

  async start(): Promise<void> {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.scan(), Math.max(50, Math.floor(this.work.leaseMs / 3)));
    this.timer.unref?.();
    await this.scan();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.queue.length = 0;
    await this.scanning;
    const all = [...this.running.values()];
    for (const { controller } of all) controller.abort('closing');
    await Promise.all(all.map((r) => r.done));
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.max && this.queue.length > 0) {
      const ref = this.queue.shift()!;
      const key = keyOf(ref);
      if (this.running.has(key)) continue;
      const controller = new AbortController();
      const done = this.work
        .run(ref, controller.signal)
        .catch(this.onError)
        .finally(() => {
          this.running.delete(key);
          this.pump();
        });
      this.running.set(key, { controller, done });
    }
  }

  private scan(): Promise<void> {
    this.scanning ??= (async () => {
      try {
        for await (const ref of this.work.resumable()) this.enqueue(ref);
      } catch (error) {
        this.onError(error);
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }
}
