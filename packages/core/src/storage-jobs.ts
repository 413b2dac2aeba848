import type { RecordCollection, StoredRecordBase, Versioned } from './storage-records.js';

/**
 * The `jobs` collection: records as any other, plus the conditional insert that bounds an organization's active
 * jobs. Its job records are what the cap counts, so ending a job (deleting its record) frees its place, whatever
 * ended it.
 */
export interface JobCollection extends RecordCollection<JobRecord> {
  /**
   * Stores `record` at version 1 only if fewer than `cap` job records of its `iteration_organization_id` exist, as
   * one atomic step of the store (two callers racing for the last place: one gets it): null when the organization
   * is at `cap` (nothing written). A record with the same id: `DocevalsError('conflict')`, as for `insert`.
   */
  insertWithinCap(record: JobRecord, cap: number): Promise<Versioned<JobRecord> | null>;
}

/** The reserved organization id under which `Storage.jobs` records live: no caller may use it. */
export const JOBS_SCOPE = 'docevals-jobs';

/** An active job, for runners to find (org-independent): id = `${organization_id}.${iteration_id}`. */
export interface JobRecord extends StoredRecordBase {
  /** Always {@link JOBS_SCOPE}. */
  organization_id: string;
  /** The organization of the iteration. */
  iteration_organization_id: string;
  evaluation_id: string;
  iteration_id: string;
  job_id: string;
  created_at: string;
}
