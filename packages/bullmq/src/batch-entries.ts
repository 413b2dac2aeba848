import type { DocumentJobData, Fleet } from './fleet.js';

/** What the fleet's step answers: whether the calls were entered, and how many of the job's documents are left. */
export type StepAnswer = { entered: boolean; left: number };

/**
 * A batch's calls in the job's `inflight` set (what a cancel waits on), entered before its first call starts and
 * checked against the cancel flag in the same step, so that once a cancel is acknowledged no call starts: the batch's
 * documents from the first one called on are entered together, in one step (one Redis round trip per batch, not one
 * per document), and leave together with the last step, which records the batch's documents. A cancel announced
 * while the batch runs aborts it (the call in flight, and the documents entered and not yet called are skipped), and
 * the cancel waits until the last step has left them. `batchId` names the batch's attempt on this worker (worker,
 * BullMQ job, attempt): with a document id, an entry (no spaces).
 */
export function batchEntries(fleet: Fleet, batchId: string, data: DocumentJobData) {
  const entryOf = (documentId: string) => `${batchId}:${documentId}`;
  /** Entries sent and not left yet. */
  let open: string[] = [];
  let entering: Promise<StepAnswer> | null = null;
  return {
    /** Whether `documentId`'s call may start: the first call enters the batch's documents from it on. */
    async beforeCall(documentId: string): Promise<boolean> {
      if (!entering) {
        const from = data.document_ids.indexOf(documentId);
        open = (from < 0 ? [documentId] : data.document_ids.slice(from)).map(entryOf);
        entering = fleet.step(data.job_id, data.model, [], [], open);
      }
      return (await entering).entered;
    },
    /** The batch's last step: leaves every open entry, records `done`; null when there was nothing to send. */
    async last(done: ReadonlyArray<readonly [string, string]>): Promise<StepAnswer | null> {
      if (open.length === 0 && done.length === 0) return null;
      const leave = open;
      open = [];
      return fleet.step(data.job_id, data.model, leave, done, []);
    },
  };
}
