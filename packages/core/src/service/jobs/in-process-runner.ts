import { context, type Context } from '@opentelemetry/api';
import type { IterationRef, JobRunner, JobWork } from './contract.js';

/** How long a cancel waits for the run to stop (calls in flight aborted, events of what it saved written). */
const CANCEL_WAIT_MS = 2_000;

const keyOf = (ref: IterationRef) => `${ref.organization_id}\u0000${ref.iteration_id}`;

/**
 * A job waiting for its turn, with the trace context it was enqueued in (the iteration's span): it starts later from
 * another job's end or a scan, whose context is not its own, and its documents must still be the iteration's children.
 */
interface Waiting {
  ref: IterationRef;
  trace: Context;
}

/**
 * The embedded runner: at most `maxRunningIterations` jobs of one organization at once in this process, the others
 * waiting in FIFO order; organizations side by side, started in turn, their extractor calls sharing the service's
 * fair slots (docs/spec/jobs.md, Fair scheduling). `start()` resumes the
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
  /** Waiting jobs by organization; the Map's order is the turn (an organization served goes to the back). */
  private readonly queue = new Map<string, Waiting[]>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Running jobs by organization. */
  private readonly perOrganization = new Map<string, number>();
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
    const waiting = this.queue.get(ref.organization_id);
    if (this.running.has(key) || waiting?.some((q) => keyOf(q.ref) === key)) return;
    const entry = { ref, trace: context.active() };
    if (waiting) waiting.push(entry);
    else this.queue.set(ref.organization_id, [entry]);
    this.pump();
  }

  async cancel(ref: IterationRef): Promise<void> {
    const key = keyOf(ref);
    const waiting = this.queue.get(ref.organization_id) ?? [];
    const index = waiting.findIndex((q) => keyOf(q.ref) === key);
    if (index >= 0) waiting.splice(index, 1);
    if (waiting.length === 0) this.queue.delete(ref.organization_id);
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
    this.queue.clear();
    await this.scanning;
    const all = [...this.running.values()];
    for (const { controller } of all) controller.abort('closing');
    await Promise.all(all.map((r) => r.done));
  }

  /** Starts waiting jobs, the organizations in turn, each up to `max` running. */
  private pump(): void {
    let started = true;
    while (!this.closed && started) {
      started = false;
      for (const [org, waiting] of [...this.queue]) {
        if ((this.perOrganization.get(org) ?? 0) >= this.max) continue;
        const next = waiting.shift()!;
        this.queue.delete(org);
        if (waiting.length > 0) this.queue.set(org, waiting);
        if (!this.running.has(keyOf(next.ref))) context.with(next.trace, () => this.startRun(next.ref));
        started = true;
      }
    }
  }

  private startRun(ref: IterationRef): void {
    const key = keyOf(ref);
    const org = ref.organization_id;
    this.perOrganization.set(org, (this.perOrganization.get(org) ?? 0) + 1);
    const controller = new AbortController();
    const done = this.work
      .run(ref, controller.signal)
      .catch(this.onError)
      .finally(() => {
        this.running.delete(key);
        const left = (this.perOrganization.get(org) ?? 1) - 1;
        if (left > 0) this.perOrganization.set(org, left);
        else this.perOrganization.delete(org);
        this.pump();
      });
    this.running.set(key, { controller, done });
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
