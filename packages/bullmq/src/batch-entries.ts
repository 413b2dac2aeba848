import type { DocumentJobData, Fleet } from './fleet.js';

/** What the fleet's step answers: whether the call was entered, and how many of the job's documents are left. */
export type StepAnswer = { entered: boolean; left: number };

/**
 * A batch's calls in the job's `inflight` set (what a cancel waits on), each entered before its call starts and
 * checked against the cancel flag in the same step, so that once a cancel is acknowledged no call starts. The next
 * document is entered while the current call runs (its step is off the calls' path), and with it the previous call,
 * over by then, leaves; the last step leaves what is left and records the batch's documents. `batchId` names the
 * batch's attempt on this worker (worker, BullMQ job, attempt): with a document id, an entry (no spaces).
 */
export function batchEntries(fleet: Fleet, batchId: string, data: DocumentJobData) {
  const entryOf = (documentId: string) => `${batchId}:${documentId}`;
  /** Entries sent and not left yet (a document entered ahead and then skipped included). */
  const open = new Set<string>();
  const ahead = new Map<string, Promise<StepAnswer>>();
  let calling: string | null = null;
  const send = (leave: string[], enter: string | null, done: ReadonlyArray<readonly [string, string]> = []) => {
    for (const id of leave) open.delete(id);
    if (enter !== null) open.add(enter);
    return fleet.step(data.job_id, data.model, leave, done, enter);
  };
  return {
    async beforeCall(documentId: string, next: string | undefined): Promise<boolean> {
      // The previous call is over: it leaves with the next step sent.
      let over = calling === null ? [] : [calling];
      calling = null;
      let own = ahead.get(documentId);
      ahead.delete(documentId);
      if (!own) {
        own = send(over, entryOf(documentId));
        over = [];
      }
      if (!(await own).entered) return false;
      calling = entryOf(documentId);
      if (next !== undefined) {
        const entering = send(over, entryOf(next));
        entering.catch(() => undefined); // awaited by the next document's turn, or left unread when it is skipped
        ahead.set(next, entering);
      }
      return true;
    },
    /** The batch's last step: leaves every open entry, records `done`; null when there was nothing to send. */
    async last(done: ReadonlyArray<readonly [string, string]>): Promise<StepAnswer | null> {
      if (open.size === 0 && done.length === 0) return null;
      return send([...open], null, done);
    },
  };
}
