import type { InferenceSettings, InferenceSettingsInput } from './schemas/inference-settings.js';
import type { Metadata } from './schemas/metadata.js';
import type { JsonObject } from './json/assert-json.js';
import type { DocumentComparison } from './metrics/compare-documents.js';
import type { JobCollection } from './storage-jobs.js';
import type { RecordCollection, RecordPage, StoredRecordBase, Versioned } from './storage-records.js';

export * from './storage-records.js';
export * from './storage-jobs.js';

/**
 * The storage contract of docevals. Small and domain-shaped: record collections with compare-and-set on a version,
 * child collections (records that belong to a parent record and are read in pages), and a content-addressed,
 * reference-counted file store. The service never writes a record it read across an `await` without the version
 * check, so two servers sharing one store never lose each other's writes.
 *
 * Layout (docs/storage.md): an evaluation record holds its settings and the ids of its iterations; each
 * document is its own record (child of the evaluation); an iteration record holds settings, status and lease; each
 * prediction is its own record (child of the iteration, keyed by document id). So one document's change costs one
 * document's work: a write touches records of bounded size, never a whole evaluation.
 *
 * Adapters: `memoryStorage()`, `lowdbStorage({ dir })`, `redisStorage({ client | url })`,
 * `postgresStorage({ pool | connectionString })` in `@docevals/adapters`; third-party adapters prove themselves with
 * `runStorageConformance` from `@docevals/adapters/conformance`.
 */
export interface Storage {
  /** Adapter name, used in logs (`memory`, `lowdb`, `redis`, `postgres`). Never sent to clients with a path. */
  readonly name: string;
  readonly evaluations: RecordCollection<EvaluationRecord>;
  /** Documents of an evaluation: parent = evaluation id, id = file_id; read in the evaluation's document order. */
  readonly documents: ChildCollection<DocumentRecord>;
  readonly iterations: RecordCollection<IterationRecord>;
  /** Predictions of an iteration: parent = iteration id, id = document id. Totals: {@link PredictionTotals}. */
  readonly predictions: ChildCollection<PredictionRecord>;
  readonly processors: RecordCollection<ProcessorRecord>;
  /**
   * Events of an iteration's jobs (docs/spec/jobs.md): parent = iteration id, insert-only (`put(record, 0)`), id
   * `${job_id}.${document_id}` or `${job_id}.final`. Insertion order is the event order: a stream resumes with
   * `list(after: id)`.
   */
  readonly events: ChildCollection<IterationEventRecord>;
  /**
   * One record per active job (queued or running iteration), all in the reserved organization `JOBS_SCOPE` (storage-jobs.ts),
   * so a runner finds the jobs to resume without knowing the organizations. Removed when the job ends. Its
   * {@link JobCollection.insertWithinCap} is how the per-organization cap on active iterations holds across servers.
   */
  readonly jobs: JobCollection;
  readonly files: FileStore;
  /** Releases what the adapter opened itself (a host's own client or pool is left open). Idempotent. */
  close(): Promise<void>;
}

/** What every child record carries: it belongs to one parent record of the organization. */
export interface ChildRecordBase {
  /** Unique within the parent. */
  id: string;
  organization_id: string;
  /** The id of the parent record (an evaluation for documents, an iteration for predictions). */
  parent_id: string;
  updated_at: string;
  /**
   * Numbers the collection sums per parent, atomically with every write of the record (insert, put, delete):
   * {@link ChildCollection.totals}. Absent counts as no numbers.
   */
  totals?: Record<string, number>;
}

export interface ChildPageQuery {
  limit: number;
  /** The `limit` children just after this id in the parent's order (exclusive). */
  after?: string;
}

/** Per parent: how many children, and the sum of each key of their `totals`. */
export interface ChildTotals {
  count: number;
  sums: Record<string, number>;
}

/**
 * Records that belong to a parent record (documents of an evaluation, predictions of an iteration). The parent's
 * order is insertion order: a child keeps its place when replaced, and one inserted again after a delete goes last.
 * Every method is atomic on its own, and keeps {@link ChildCollection.totals} exact in the same step. Nothing here
 * checks that the parent exists: the service does.
 */
export interface ChildCollection<T extends ChildRecordBase> {
  get(organizationId: string, parentId: string, id: string): Promise<Versioned<T> | null>;
  /** In the order of `ids`, null for each id the parent does not hold. */
  getMany(organizationId: string, parentId: string, ids: readonly string[]): Promise<Array<Versioned<T> | null>>;
  /**
   * Stores new records (all of one organization and one parent) at version 1, at the end of the parent's order, in
   * the order given. All or nothing, one commit: an id the parent already holds, or an id twice in `records`, is a
   * `DocevalsError('conflict')` and nothing is written.
   */
  insertMany(records: readonly T[]): Promise<Array<Versioned<T>>>;
  /**
   * Writes one record. `expectedVersion`: a number replaces only if the stored version is still that one (null when
   * it moved or the record is gone); `0` inserts only if the parent holds no such id (null otherwise); omitted
   * writes whatever is there (insert or replace). A replaced record keeps its place in the parent's order.
   */
  put(record: T, expectedVersion?: number): Promise<Versioned<T> | null>;
  /**
   * {@link ChildCollection.put} for many records (all of one organization and one parent) as one compare-and-set:
   * every entry's `expectedVersion` is checked first (same meaning as `put`'s), and only when all match is the
   * batch written, in one commit (lowdb: one journal; Redis: one script; Postgres: one transaction), totals moved
   * in the same step. Otherwise nothing is written and `conflicts` lists the indexes of the entries whose version
   * did not match (the caller re-reads those and retries). An id twice in `entries` is a
   * `DocevalsError('conflict')`, nothing written. Results in the order of `entries`; new ids go to the end of the
   * parent's order in that order.
   */
  putMany(entries: ReadonlyArray<ChildPut<T>>): Promise<PutManyResult<T>>;
  /** Removes one child; false when there was none (or, with `expectedVersion`, when its version moved). */
  delete(organizationId: string, parentId: string, id: string, expectedVersion?: number): Promise<boolean>;
  /** Removes every child of the parent in one step; returns how many there were. */
  deleteAll(organizationId: string, parentId: string): Promise<number>;
  /** A page in the parent's order; null when `after` names no child of the parent. Reads at most `limit` records. */
  list(organizationId: string, parentId: string, query: ChildPageQuery): Promise<RecordPage<T> | null>;
  /** Count and summed totals of the parent's children, without reading them. */
  totals(organizationId: string, parentId: string): Promise<ChildTotals>;
}

/** One write of {@link ChildCollection.putMany}: the record and the version it expects, as for `put`. */
export interface ChildPut<T> {
  record: T;
  /** A number: the stored version must still be that one; `0`: the id must be absent; omitted: any. */
  expectedVersion?: number;
}

/** What {@link ChildCollection.putMany} did: every entry written, or none (and which versions did not match). */
export type PutManyResult<T> =
  | { ok: true; records: Array<Versioned<T>> }
  | { ok: false; conflicts: number[] };

/** A stored file: its raw bytes and the media type of the data URL it came in. */
export interface StoredFile {
  bytes: Uint8Array;
  mime_type: string;
}

/**
 * Content-addressed, per organization, reference-counted: a file is kept while something refers to it.
 * Every method is atomic.
 */
export interface FileStore {
  /**
   * Adds one reference to `fileId`. When the file is absent and `content` is given, stores it first (the content
   * of an existing file is never rewritten). Returns false, changing nothing, when the file is absent and no
   * content was given.
   */
  retain(organizationId: string, fileId: string, content?: StoredFile): Promise<boolean>;
  /** Removes one reference; at zero the file is deleted. Releasing an unknown file does nothing. */
  release(organizationId: string, fileId: string): Promise<void>;
  get(organizationId: string, fileId: string): Promise<StoredFile | null>;
  /**
   * {@link FileStore.get} for many files of one organization, in the order of `fileIds` (null for an absent one; a
   * file id twice is answered twice): one round trip (Redis, Postgres) instead of one per file. Optional, so that a
   * host's own store without it still works: the service then calls `get` per file.
   */
  getMany?(organizationId: string, fileIds: readonly string[]): Promise<Array<StoredFile | null>>;
  /**
   * {@link FileStore.retain} for many files in one commit (lowdb) or one round trip (Redis, Postgres); the result
   * in the order of `entries`. All or nothing when the store fails. A file id twice in `entries` gets two references.
   */
  retainMany(organizationId: string, entries: ReadonlyArray<{ fileId: string; content?: StoredFile }>): Promise<boolean[]>;
  /** {@link FileStore.release} for many files in one commit / round trip. */
  releaseMany(organizationId: string, fileIds: readonly string[]): Promise<void>;
}

/** A document of an evaluation: a reference to its file, plus its annotation. Child of the evaluation. */
export interface DocumentRecord extends ChildRecordBase {
  /** The file_id. */
  id: string;
  /** The evaluation id. */
  parent_id: string;
  filename: string;
  /** Media type of the stored file, so lists can answer without reading file contents. */
  mime_type: string;
  /** Size of the stored file in bytes. */
  size: number;
  annotation: JsonObject;
  annotation_metadata: Metadata | null;
  /** Changes whenever the annotation changes; cached metrics name the revision they were computed for. */
  revision: string;
  /** `{unlabeled: 1}` when the annotation gives no ground truth (isLabeled false), summed per evaluation. */
  totals?: Record<string, number>;
}

export interface EvaluationRecord extends StoredRecordBase {
  name: string;
  project_id: string;
  json_schema: JsonObject;
  schema_id: string;
  schema_data_id: string;
  default_inference_settings: InferenceSettingsInput;
  /**
   * Documents reserved for this evaluation, kept by compare-and-set before documents are inserted, so the
   * per-evaluation limit holds under concurrent adds. The documents themselves are in {@link Storage.documents}.
   */
  document_count: number;
  /** Oldest first. An iteration belongs to the evaluation once its id is here. */
  iteration_ids: string[];
  created_at: string;
}

/** Metrics of one document (`compareDocuments`' figures), cached with the annotation revision they describe. */
export interface CachedDocumentMetrics extends DocumentComparison {
  annotation_revision: string;
}

/** The outcome of one document in an iteration. */
export type PredictionStatus = 'succeeded' | 'failed';

/**
 * The keys a prediction puts in its `totals`, summed per iteration by the child collection: the iteration's
 * aggregates (means over succeeded documents, counts, cost) without reading every prediction.
 */
export interface PredictionTotals {
  /**
   * Also `priced` (written by the service since it existed, so not declared: totals of older stores lack it): 1 when
   * the metadata carries an api_cost (even of 0), else 0. It tells an all-free iteration (cost 0, priced > 0) from one
   * whose cost is unknown.
   */
  [key: string]: number;
  /** 1 when the extraction succeeded, else 0. */
  succeeded: number;
  /** 1 when the extraction failed, else 0. */
  failed: number;
  /** The document's similarity when succeeded, else 0. */
  similarity: number;
  /** The document's aligned similarity when succeeded, else 0. */
  aligned_similarity: number;
  /**
   * Also (absent on predictions stored before them, which then count as labeled and valid): `unlabeled` (1 when the
   * document had no ground truth at the metrics' annotation revision), `unlabeled_succeeded`, `unlabeled_failed`,
   * `unlabeled_similarity`, `unlabeled_aligned_similarity` (the plain figures of such a document), `schema_invalid`
   * (1 when succeeded and not valid against the iteration's json_schema). A summary subtracts them from the plain
   * sums (docs/spec/metrics.md section 5).
   */
  /** api_cost.total of the prediction's metadata, 0 when unknown. */
  cost: number;
  input_tokens: number;
  output_tokens: number;
}

/** One document's prediction in one iteration. Child of the iteration; `id` is the document id. */
export interface PredictionRecord extends ChildRecordBase {
  /** The document id (file_id). */
  id: string;
  /** The iteration id. */
  parent_id: string;
  evaluation_id: string;
  /** The job that wrote it (docs/spec/jobs.md); absent on predictions written before jobs existed or imported. */
  job_id?: string | null;
  status: PredictionStatus;
  prediction: JsonObject;
  metadata: Metadata | null;
  metrics: CachedDocumentMetrics;
  /** Whether the prediction validates against the iteration's json_schema; null or absent when not checked. */
  schema_valid?: boolean | null;
  /** The first issues when `schema_valid` is false. */
  schema_issues?: Array<{ path: string; message: string }>;
  totals: PredictionTotals;
}

export type IterationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** Who runs an iteration now: taken and renewed by compare-and-set on the iteration record, expired by time. */
export interface IterationLease {
  /** An id of the runner (server process or worker) holding it. */
  owner: string;
  /** ISO 8601; past it, another runner may take the iteration over. */
  expires_at: string;
}

export interface IterationRecord extends StoredRecordBase {
  evaluation_id: string;
  inference_settings: InferenceSettings;
  json_schema: JsonObject;
  schema_id: string;
  schema_data_id: string;
  created_at: string;
  /** Top-level copy of `inference_settings.model`, so lists can filter on it. */
  model: string;
  status: IterationStatus;
  started_at: string | null;
  finished_at: string | null;
  /** Why the whole iteration failed, else null. */
  error: string | null;
  /** Set while a runner works on it. */
  lease: IterationLease | null;
  /** The last run asked for (create or process); null for imported iterations. Absent on older records. */
  job?: IterationJob | null;
  /** Labels people give it (docs/decisions.md, Experiments). Absent on older records: none. */
  name?: string | null;
  description?: string | null;
  tags?: string[];
}

/** Which documents a job runs: all, those without a successful prediction, or the ones named. */
export type JobSelection = 'all' | 'missing' | { document_ids: string[] };

/** A run of an iteration's documents, named on the iteration record. */
export interface IterationJob {
  id: string;
  selection: JobSelection;
  /** When the job was asked for (create / process). */
  started_at: string;
}

export type IterationEventType = 'document' | 'completed' | 'failed' | 'cancelled';

/** One event of an iteration's job: a document finished, or the job ended (with the iteration's summary). */
export interface IterationEventRecord extends ChildRecordBase {
  /** `${job_id}.${document_id}` or `${job_id}.final`. */
  id: string;
  /** The iteration id. */
  parent_id: string;
  job_id: string;
  type: IterationEventType;
  /** For a `document` event. */
  document_id: string | null;
  similarity: number | null;
  error: string | null;
  /** For a final event: the iteration's summary (status, progress, usage, means) as rendered then. */
  summary: JsonObject | null;
  created_at: string;
}

export interface ProcessorRecord extends StoredRecordBase {
  name: string;
  model: string;
  modality: InferenceSettings['modality'];
  image_resolution_dpi: number;
  browser_canvas: InferenceSettings['browser_canvas'];
  temperature: number;
  reasoning_effort: InferenceSettings['reasoning_effort'];
  n_consensus: number;
  json_schema: JsonObject;
  schema_id: string;
  schema_data_id: string;
  created_at: string;
}
