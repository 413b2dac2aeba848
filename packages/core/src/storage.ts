import type { InferenceSettings, InferenceSettingsInput } from './schemas/inference-settings.js';
import type { Metadata } from './schemas/metadata.js';
import type { JsonObject } from './json/assert-json.js';
import type { DocumentComparison } from './metrics/compare-documents.js';

/**
 * The storage contract of docevals. Small and domain-shaped: three record collections with compare-and-set on a
 * version, and a content-addressed, reference-counted file store. The service never writes a record it read
 * across an `await` without the version check, so two servers sharing one store never lose each other's writes.
 *
 * Adapters: `memoryStorage()`, `lowdbStorage({ dir })`, `redisStorage({ client | url })` in `@docevals/adapters`;
 * third-party adapters prove themselves with `runStorageConformance` from `@docevals/adapters/conformance`.
 */
export interface Storage {
  /** Adapter name, used in `storage_error` messages (`memory`, `lowdb`, `redis`). */
  readonly name: string;
  readonly evaluations: RecordCollection<EvaluationRecord>;
  readonly iterations: RecordCollection<IterationRecord>;
  readonly processors: RecordCollection<ProcessorRecord>;
  readonly files: FileStore;
  /** Releases what the adapter opened itself (a host's own Redis client is left open). Idempotent. */
  close(): Promise<void>;
}

/** A record with the version that a later {@link RecordCollection.replace} must name. */
export interface Versioned<T> {
  readonly value: T;
  /** Starts at 1 on insert and grows by one with every replace. */
  readonly version: number;
}

/** What every stored record carries. Records are scoped by organization: another one's record does not exist. */
export interface StoredRecordBase {
  id: string;
  organization_id: string;
  /** ISO 8601 UTC with milliseconds (`toISOString()`), so it sorts as text. */
  updated_at: string;
}

export interface RecordListQuery {
  limit: number;
  /** By `updated_at`, then `id`. */
  order: 'asc' | 'desc';
  /** The `limit` records just before this id in `order` (exclusive), returned in `order`. */
  before?: string;
  /** The `limit` records just after this id in `order` (exclusive). */
  after?: string;
  /** Exact match on top-level string fields of the record (`{ model: 'gpt-4o' }`); all must match. */
  where?: Record<string, string>;
}

export interface RecordPage<T> {
  items: T[];
  /** More matching records exist beyond this page in the direction of travel. */
  has_more: boolean;
}

/**
 * One collection of records. Every method is atomic on its own; `replace` is the compare-and-set that makes
 * read-modify-write safe.
 */
export interface RecordCollection<T extends StoredRecordBase> {
  get(organizationId: string, id: string): Promise<Versioned<T> | null>;
  /** In the order of `ids`, null for each id that does not exist in the organization. */
  getMany(organizationId: string, ids: readonly string[]): Promise<Array<Versioned<T> | null>>;
  /** Stores a new record at version 1. A record with the same id in the organization: `DocevalsError('conflict')`. */
  insert(record: T): Promise<Versioned<T>>;
  /**
   * Replaces the record if its stored version is still `expectedVersion`; returns the new version, or null when the
   * record changed meanwhile or is gone (the caller re-reads and tries again).
   */
  replace(record: T, expectedVersion: number): Promise<Versioned<T> | null>;
  /**
   * Removes the record; false when there was none. With `expectedVersion`, removes it only if its stored version is
   * still that one (false otherwise, nothing changed): the compare-and-set form, for a caller that must act on
   * exactly what it deleted.
   */
  delete(organizationId: string, id: string, expectedVersion?: number): Promise<boolean>;
  /** A page of records; null when a `before` / `after` cursor names no record of the organization. */
  list(organizationId: string, query: RecordListQuery): Promise<RecordPage<T> | null>;
}

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
}

/** A document inside an evaluation record: a reference to its file, plus its annotation. */
export interface StoredDocument {
  /** The file_id. */
  id: string;
  filename: string;
  annotation: JsonObject;
  annotation_metadata: Metadata | null;
  /** Changes whenever the annotation changes; cached metrics name the revision they were computed for. */
  revision: string;
}

export interface EvaluationRecord extends StoredRecordBase {
  name: string;
  project_id: string;
  json_schema: JsonObject;
  schema_id: string;
  schema_data_id: string;
  default_inference_settings: InferenceSettingsInput;
  documents: StoredDocument[];
  /** Oldest first. An iteration belongs to the evaluation once its id is here. */
  iteration_ids: string[];
  created_at: string;
}

/** Metrics of one document (`compareDocuments`' figures), cached with the annotation revision they describe. */
export interface CachedDocumentMetrics extends DocumentComparison {
  annotation_revision: string;
}

export interface StoredPrediction {
  prediction: JsonObject;
  metadata: Metadata | null;
  metrics?: CachedDocumentMetrics;
}

export interface IterationRecord extends StoredRecordBase {
  evaluation_id: string;
  inference_settings: InferenceSettings;
  json_schema: JsonObject;
  schema_id: string;
  schema_data_id: string;
  /** By document id. A document without an entry has the prediction `{}` with metadata null. */
  predictions: Record<string, StoredPrediction>;
  created_at: string;
  /** Top-level copy of `inference_settings.model`, so lists can filter on it. */
  model: string;
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
