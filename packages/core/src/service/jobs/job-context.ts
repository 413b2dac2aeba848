import { nanoid } from 'nanoid';
import type { IterationStatus } from '../../storage.js';
import type { FairSlots } from './fair-slots.js';

/** What running jobs need besides the service context. */
export interface JobContext {
  /** This process's runner id, on the leases it takes. */
  owner: string;
  leaseMs: number;
  /** Extractor calls of in-process runs, shared round-robin between organizations. */
  slots: FairSlots;
  /** JobOptions.maxIterationsPerOrganization. */
  maxPerOrganization: number;
  /** Wakes local event streams when this process writes an event (other processes are polled). */
  signals: LocalSignals;

  /**
   * Sync callers waiting in this process, by job id: a run that stops on an error (a store failing) leaves it here,
   * so the caller gets that error rather than a generic one.
   */
  waiting: Map<string, { error?: unknown }>;
}

export const newJobId = () => `job_${nanoid()}`;
export const isActive = (status: IterationStatus) => status === 'queued' || status === 'running';
export const jobRecordId = (organizationId: string, iterationId: string) => `${organizationId}.${iterationId}`;
export const finalEventId = (jobId: string) => `${jobId}.final`;
export const documentEventId = (jobId: string, documentId: string) => `${jobId}.${documentId}`;

/** Per-iteration wake-ups for streams waiting on new events in this process. */
export class LocalSignals {
  private readonly waiters = new Map<string, Set<() => void>>();

  notify(iterationId: string): void {
    const set = this.waiters.get(iterationId);
    if (!set) return;
    this.waiters.delete(iterationId);
    for (const wake of set) wake();
  }

  /**
   * Resolves on the next notify of the iteration, after `ms` (events written by other servers are polled), or when
   * `signal` aborts.
   */
  wait(iterationId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let set = this.waiters.get(iterationId);
      if (!set) this.waiters.set(iterationId, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        set!.delete(wake);
        if (set!.size === 0 && this.waiters.get(iterationId) === set) this.waiters.delete(iterationId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal?.addEventListener('abort', wake, { once: true });
      set.add(wake);
    });
  }
}
