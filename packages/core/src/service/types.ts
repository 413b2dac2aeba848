import type { ExtractionOptions } from '../extraction/extraction-options.js';
import type { Extractor } from '../extractor.js';
import type {
  AddDocumentInput,
  CompareInput,
  EvaluationComparison,
  ExportInput,
  ImportAnnotationsInput,
  ImportAnnotationsResult,
  IterationFields,
  IterationFieldsInput,
  Leaderboard,
  LeaderboardInput,
  Matrix,
  MatrixInput,
  CreateEvaluationInput,
  CreateIterationInput,
  CreateProcessorInput,
  Deleted,
  Document,
  DocumentRefInput,
  DocumentSummary,
  Evaluation,
  EvaluationOverview,
  EvaluationRefInput,
  EvaluationSummary,
  GetEvaluationInput,
  GetIterationInput,
  Iteration,
  IterationEvent,
  IterationEventsInput,
  IterationRefInput,
  IterationIdInput,
  UpdateIterationInput,
  UpdateIterationMetadataInput,
  DocumentDistancesInput,
  DocumentDistances,
  IterationSummary,
  ListDocumentsInput,
  ListEvaluationsInput,
  ListIterationsInput,
  ListPredictionsInput,
  ListProcessorsInput,
  ListResult,
  PredictionPage,
  ProcessIterationInput,
  Processor,
  ProcessorRefInput,
  SubmitProcessorInput,
  SubmitResult,
  UpdateDocumentInput,
  UpdateEvaluationInput,
  UpdateProcessorInput,
} from '../schemas/index.js';
import type { ModelList } from '../schemas/models.js';
import type {
  CreateExternalApiKeyInput,
  CustomEndpoint,
  ExternalApiKey,
  ExternalApiKeyDeleted,
  ExternalApiKeyRefInput,
  SetCustomEndpointInput,
} from '../schemas/secrets.js';
import type { SecretCipher } from '../secrets/cipher.js';
import type { Storage } from '../storage.js';
import type { ExportStream } from './analyses.js';
import type { DocumentContent } from './documents.js';
import type { DocevalsLimits } from './context.js';
import type { JobOptions, JobRunnerStats } from './jobs/contract.js';

export type { DocevalsLimits };

export type { ExtractionOptions };

export interface DocevalsOptions {
  /** Where evaluations, iterations, processors and files live. */
  storage: Storage;
  /**
   * The extractors that serve models. A model no extractor serves is a 422 listing the served models.
   * @default [localRulesExtractor()] — the offline `local-rules` model
   */
  extractors?: Extractor[];
  limits?: Partial<DocevalsLimits>;
  extraction?: Partial<ExtractionOptions>;
  /**
   * How iterations run as jobs (docs/spec/jobs.md): iterations running at once in this process, the lease, resume
   * of unfinished jobs on start, another runner (a queue).
   */
  jobs?: Partial<JobOptions>;
  /** The clock, for tests. @default () => new Date() */
  now?: () => Date;
  /**
   * Organization secrets (docs/secrets.md): the cipher that seals each organization's provider keys at rest
   * (`aesGcmCipher([masterKey, previousKey?])`). Without one, the secrets operations answer `not_configured` (501)
   * and nothing is stored.
   */
  secrets?: { cipher?: SecretCipher | null };
}

/**
 * The docevals service: every operation of the REST API, in-process. Each takes the caller's organization id first
 * (the transports get it from the API key) and the operation's input, path parameters included as snake_case
 * fields. Inputs are validated at runtime too; errors are {@link DocevalsError}s.
 */
export interface Docevals {
  readonly evals: {
    create(organizationId: string, input: CreateEvaluationInput): Promise<Evaluation>;
    /**
     * The interface's Evaluation (every document with its content, every iteration whole), or with `view: 'summary'`
     * the evaluation without its documents: `document_count` and iterations as summaries, at a cost that does not grow
     * with the documents.
     *
     * @example
     * const { name, document_count } = await docevals.evals.get('org_1', { evaluation_id, view: 'summary' });
     */
    get(organizationId: string, input: GetEvaluationInput & { view: 'summary' }): Promise<EvaluationOverview>;
    get(organizationId: string, input: GetEvaluationInput & { view?: 'full' }): Promise<Evaluation>;
    get(organizationId: string, input: GetEvaluationInput): Promise<Evaluation | EvaluationOverview>;
    /** Summaries (docs/spec/service.md, Reads): documents without contents unless `expand: 'documents'`. */
    list(organizationId: string, input?: ListEvaluationsInput): Promise<ListResult<EvaluationSummary>>;
    update(organizationId: string, input: UpdateEvaluationInput): Promise<Evaluation>;
    delete(organizationId: string, input: EvaluationRefInput): Promise<Deleted>;
    /** Two iterations compared field by field and document by document (docs/spec/analysis.md). */
    compare(organizationId: string, input: CompareInput): Promise<EvaluationComparison>;
    /** The evaluation's completed iterations ranked (docs/spec/analysis.md). */
    leaderboard(organizationId: string, input: LeaderboardInput): Promise<Leaderboard>;
    /**
     * One page of the evaluation's documents with their similarity in every iteration: what a documents x iterations
     * grid needs (the web app's matrix), read by key, without file or prediction contents.
     * @example
     * const { iterations, data, list_metadata } = await docevals.evals.matrix('org_1', { evaluation_id, limit: 1000 });
     */
    matrix(organizationId: string, input: MatrixInput): Promise<Matrix>;
    readonly documents: {
      add(organizationId: string, input: AddDocumentInput): Promise<Document>;
      /** Summaries `{id, filename, mime_type, size}`; whole documents with `expand: 'documents'`. */
      list(organizationId: string, input: ListDocumentsInput & { expand: 'documents' }): Promise<ListResult<Document>>;
      list(organizationId: string, input: ListDocumentsInput): Promise<ListResult<DocumentSummary | Document>>;
      get(organizationId: string, input: DocumentRefInput): Promise<Document>;
      /** The document's file: bytes, media type, filename (the `mime_data.url` of list summaries). */
      content(organizationId: string, input: DocumentRefInput): Promise<DocumentContent>;
      update(organizationId: string, input: UpdateDocumentInput): Promise<Document>;
      delete(organizationId: string, input: DocumentRefInput): Promise<Deleted>;
      /** Annotations from a JSONL or CSV file, applied row by row (docs/spec/analysis.md). */
      import(organizationId: string, input: ImportAnnotationsInput): Promise<ImportAnnotationsResult>;
    };
    readonly iterations: {
      /** Every iteration, oldest first: the interface's shape, or summaries with `view: 'summary'`. */
      list(organizationId: string, input: ListIterationsInput & { view: 'summary' }): Promise<{ data: IterationSummary[] }>;
      list(organizationId: string, input: ListIterationsInput & { view?: 'full' }): Promise<{ data: Iteration[] }>;
      list(organizationId: string, input: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }>;
      /**
       * Runs an iteration over the evaluation's documents. Without `background`, answers when it is done; every
       * document failed: a 502 `extractor_error` naming the kept iteration. With `background: true`, answers at once
       * with the summary (`queued` / `running`): follow it with `events` or `get`.
       */
      create(organizationId: string, input: CreateIterationInput & { background: true }): Promise<IterationSummary>;
      create(organizationId: string, input: CreateIterationInput & { background?: false }): Promise<Iteration>;
      create(organizationId: string, input: CreateIterationInput): Promise<Iteration | IterationSummary>;
      /** The interface's shape, or a summary with `view: 'summary'`. */
      get(organizationId: string, input: GetIterationInput & { view: 'summary' }): Promise<IterationSummary>;
      get(organizationId: string, input: GetIterationInput & { view?: 'full' }): Promise<Iteration>;
      get(organizationId: string, input: GetIterationInput): Promise<Iteration | IterationSummary>;
      /**
       * A page of predictions with their metrics, in the evaluation's document order; with `document_ids`, of those
       * documents only (read by id), in that order. An id the evaluation does not hold is a 422 at its index.
       *
       * @example
       * const { data: [one] } = await docevals.evals.iterations.predictions('org_1', { evaluation_id, iteration_id, document_ids: [documentId] });
       */
      predictions(organizationId: string, input: ListPredictionsInput): Promise<PredictionPage>;
      delete(organizationId: string, input: IterationRefInput): Promise<Deleted>;
      /** Where an iteration lives, from its id alone: `{ evaluation_id, iteration_id }`. */
      locate(organizationId: string, input: IterationIdInput): Promise<{ evaluation_id: string; iteration_id: string }>;
      /** New settings (over the iteration's own) or json_schema, then every document extracted again. */
      update(organizationId: string, input: UpdateIterationInput): Promise<Iteration>;
      /**
       * Names, describes or tags an iteration (omitted labels stay; null or `[]` clears one): labels only, nothing
       * runs again.
       * @example
       * await docevals.evals.iterations.updateMetadata('org_1', { evaluation_id, iteration_id, name: 'gpt-4.1, prompt v2', tags: ['baseline'] });
       */
      updateMetadata(organizationId: string, input: UpdateIterationMetadataInput): Promise<IterationSummary>;
      /** One document's distances (1 − similarity) in an iteration. */
      distances(organizationId: string, input: DocumentDistancesInput): Promise<DocumentDistances>;
      /** Per-field summary of the iteration, worst field first (docs/spec/analysis.md). */
      fields(organizationId: string, input: IterationFieldsInput): Promise<IterationFields>;
      /** The iteration as CSV or JSON Lines, streamed a page of documents at a time (docs/spec/analysis.md). */
      export(organizationId: string, input: ExportInput): Promise<ExportStream>;
      /** Re-runs documents as a new job (`background` as for create); 409 while the iteration's job is active. */
      process(organizationId: string, input: ProcessIterationInput & { background: true }): Promise<IterationSummary>;
      process(organizationId: string, input: ProcessIterationInput & { background?: false }): Promise<Iteration>;
      process(organizationId: string, input: ProcessIterationInput): Promise<Iteration | IterationSummary>;
      /**
       * Stops the iteration's job: no new extractor call, calls in flight aborted, predictions so far kept, status
       * `cancelled`. An iteration not queued or running is answered as it is.
       */
      cancel(organizationId: string, input: IterationRefInput): Promise<IterationSummary>;
      /**
       * The iteration's events (`document`, `progress`, final `completed` / `failed` / `cancelled`) as they happen;
       * ends after the final one. `last_event_id` resumes just after that event. Break out of the loop to stop.
       *
       * @example
       * for await (const event of docevals.evals.iterations.events('org_1', { evaluation_id, iteration_id })) {
       *   if (event.type === 'document') console.log(event.data.document_id, event.data.similarity);
       * }
       */
      events(organizationId: string, input: IterationEventsInput): AsyncIterable<IterationEvent>;
    };
  };
  readonly processors: {
    create(organizationId: string, input: CreateProcessorInput): Promise<Processor>;
    get(organizationId: string, input: ProcessorRefInput): Promise<Processor>;
    list(organizationId: string, input?: ListProcessorsInput): Promise<ListResult<Processor>>;
    update(organizationId: string, input: UpdateProcessorInput): Promise<Processor>;
    delete(organizationId: string, input: ProcessorRefInput): Promise<Deleted>;
    submit(organizationId: string, input: SubmitProcessorInput): Promise<SubmitResult>;
  };
  /**
   * Each organization's provider keys (`OpenAI`, `Anthropic`, `Gemini`, `xAI`) and custom OpenAI-compatible endpoint,
   * sealed by `DocevalsOptions.secrets.cipher`; no call ever answers a key (docs/secrets.md).
   *
   * @example
   * await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-...' });
   * await docevals.secrets.externalApiKeys.list('org_1'); // [{ provider: 'OpenAI', is_configured: false, last_updated: null }, ...]
   */
  readonly secrets: {
    readonly externalApiKeys: {
      create(organizationId: string, input: CreateExternalApiKeyInput): Promise<ExternalApiKey>;
      get(organizationId: string, input: ExternalApiKeyRefInput): Promise<ExternalApiKey>;
      list(organizationId: string): Promise<ExternalApiKey[]>;
      delete(organizationId: string, input: ExternalApiKeyRefInput): Promise<ExternalApiKeyDeleted>;
    };
    /** The organization's own OpenAI-compatible endpoint: its models run as `custom/<name>`. */
    readonly customEndpoint: {
      set(organizationId: string, input: SetCustomEndpointInput): Promise<CustomEndpoint>;
      get(organizationId: string): Promise<CustomEndpoint>;
      delete(organizationId: string): Promise<{ deleted: boolean; success: true }>;
    };
    /**
     * For the host, at start: checks the master key against the store (a wrong key is a `not_configured` error
     * naming the key id the store needs) and, when the store is under the previous key, re-encrypts every secret.
     */
    check(): Promise<{ key_id: string; reencrypted: number }>;
    /** Re-encrypts every organization's secrets not under the current master key; returns how many. */
    reencrypt(): Promise<number>;
    /** Whether a cipher was given (else every secrets call is a 501 `not_configured`). */
    readonly configured: boolean;
  };
  /** The model names and patterns the registered extractors serve. */
  models(): string[];
  /**
   * GET /v1/models: the served models with their extractor, `pattern` flag and modalities. For an organization: the
   * models it can run now, with the `provider` serving each (its own key or the host's); without one, the host's.
   */
  listModels(organizationId?: string): Promise<ModelList>;
  /**
   * What the job runner's queues hold (a queue runner: depth, running, failed, completed per model; workers seen),
   * for a host's health detail; null for the in-process runner, which has none.
   */
  jobStats(): Promise<JobRunnerStats | null>;
  /** Stops the job runner (local runs aborted, their leases released for another server), then the storage's `close()`. */
  close(): Promise<void>;
}
