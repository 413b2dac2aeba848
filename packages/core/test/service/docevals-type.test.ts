import type {
  AddDocumentInput,
  CompareInput,
  CreateEvaluationInput,
  CreateExternalApiKeyInput,
  CreateIterationInput,
  CreateProcessorInput,
  CustomEndpoint,
  Deleted,
  Docevals,
  Document,
  DocumentContent,
  DocumentDistances,
  DocumentDistancesInput,
  DocumentRefInput,
  DocumentSummary,
  DuplicateEvaluationInput,
  Evaluation,
  EvaluationComparison,
  EvaluationOverview,
  EvaluationRefInput,
  EvaluationSummary,
  ExportInput,
  ExportStream,
  ExternalApiKey,
  ExternalApiKeyDeleted,
  ExternalApiKeyRefInput,
  GetEvaluationInput,
  GetIterationInput,
  ImportAnnotationsInput,
  ImportAnnotationsResult,
  Iteration,
  IterationEvent,
  IterationEventsInput,
  IterationFields,
  IterationFieldsInput,
  IterationIdInput,
  IterationRefInput,
  IterationSummary,
  JobRunnerStats,
  Leaderboard,
  LeaderboardInput,
  ListDocumentsInput,
  ListEvaluationsInput,
  ListIterationsInput,
  ListPredictionsInput,
  ListProcessorsInput,
  ListResult,
  LoadSampleInput,
  Matrix,
  MatrixInput,
  ModelList,
  PredictionPage,
  ProcessIterationInput,
  Processor,
  ProcessorRefInput,
  SetCustomEndpointInput,
  SubmitProcessorInput,
  SubmitResult,
  UpdateDocumentInput,
  UpdateEvaluationInput,
  UpdateIterationInput,
  UpdateIterationMetadataInput,
  UpdateProcessorInput,
} from '@docevals/core';
import { describe, expectTypeOf, it } from 'vitest';

/**
 * The `Docevals` interface as it was written by hand (before it was derived from the service's implementations):
 * the public shape the derived type must keep, overloads included. Checked at compile time (`pnpm typecheck`).
 * Operations added since (`evals.duplicate`, `evals.loadSample`) are added here as they are added to the service.
 */
interface DocevalsBefore {
  readonly evals: {
    create(organizationId: string, input: CreateEvaluationInput): Promise<Evaluation>;
    get(organizationId: string, input: GetEvaluationInput & { view: 'summary' }): Promise<EvaluationOverview>;
    get(organizationId: string, input: GetEvaluationInput & { view?: 'full' }): Promise<Evaluation>;
    get(organizationId: string, input: GetEvaluationInput): Promise<Evaluation | EvaluationOverview>;
    list(organizationId: string, input?: ListEvaluationsInput): Promise<ListResult<EvaluationSummary>>;
    update(organizationId: string, input: UpdateEvaluationInput): Promise<Evaluation>;
    delete(organizationId: string, input: EvaluationRefInput): Promise<Deleted>;
    duplicate(organizationId: string, input: DuplicateEvaluationInput): Promise<EvaluationOverview>;
    loadSample(organizationId: string, input?: LoadSampleInput): Promise<EvaluationOverview>;
    compare(organizationId: string, input: CompareInput): Promise<EvaluationComparison>;
    leaderboard(organizationId: string, input: LeaderboardInput): Promise<Leaderboard>;
    matrix(organizationId: string, input: MatrixInput): Promise<Matrix>;
    readonly documents: {
      add(organizationId: string, input: AddDocumentInput): Promise<Document>;
      list(organizationId: string, input: ListDocumentsInput & { expand: 'documents' }): Promise<ListResult<Document>>;
      list(organizationId: string, input: ListDocumentsInput): Promise<ListResult<DocumentSummary | Document>>;
      get(organizationId: string, input: DocumentRefInput): Promise<Document>;
      content(organizationId: string, input: DocumentRefInput): Promise<DocumentContent>;
      update(organizationId: string, input: UpdateDocumentInput): Promise<Document>;
      delete(organizationId: string, input: DocumentRefInput): Promise<Deleted>;
      import(organizationId: string, input: ImportAnnotationsInput): Promise<ImportAnnotationsResult>;
    };
    readonly iterations: {
      list(organizationId: string, input: ListIterationsInput & { view: 'summary' }): Promise<{ data: IterationSummary[] }>;
      list(organizationId: string, input: ListIterationsInput & { view?: 'full' }): Promise<{ data: Iteration[] }>;
      list(organizationId: string, input: ListIterationsInput): Promise<{ data: Array<Iteration | IterationSummary> }>;
      create(organizationId: string, input: CreateIterationInput & { background: true }): Promise<IterationSummary>;
      create(organizationId: string, input: CreateIterationInput & { background?: false }): Promise<Iteration>;
      create(organizationId: string, input: CreateIterationInput): Promise<Iteration | IterationSummary>;
      get(organizationId: string, input: GetIterationInput & { view: 'summary' }): Promise<IterationSummary>;
      get(organizationId: string, input: GetIterationInput & { view?: 'full' }): Promise<Iteration>;
      get(organizationId: string, input: GetIterationInput): Promise<Iteration | IterationSummary>;
      predictions(organizationId: string, input: ListPredictionsInput): Promise<PredictionPage>;
      delete(organizationId: string, input: IterationRefInput): Promise<Deleted>;
      locate(organizationId: string, input: IterationIdInput): Promise<{ evaluation_id: string; iteration_id: string }>;
      update(organizationId: string, input: UpdateIterationInput): Promise<Iteration>;
      updateMetadata(organizationId: string, input: UpdateIterationMetadataInput): Promise<IterationSummary>;
      distances(organizationId: string, input: DocumentDistancesInput): Promise<DocumentDistances>;
      fields(organizationId: string, input: IterationFieldsInput): Promise<IterationFields>;
      export(organizationId: string, input: ExportInput): Promise<ExportStream>;
      process(organizationId: string, input: ProcessIterationInput & { background: true }): Promise<IterationSummary>;
      process(organizationId: string, input: ProcessIterationInput & { background?: false }): Promise<Iteration>;
      process(organizationId: string, input: ProcessIterationInput): Promise<Iteration | IterationSummary>;
      cancel(organizationId: string, input: IterationRefInput): Promise<IterationSummary>;
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
  readonly secrets: {
    readonly externalApiKeys: {
      create(organizationId: string, input: CreateExternalApiKeyInput): Promise<ExternalApiKey>;
      get(organizationId: string, input: ExternalApiKeyRefInput): Promise<ExternalApiKey>;
      list(organizationId: string): Promise<ExternalApiKey[]>;
      delete(organizationId: string, input: ExternalApiKeyRefInput): Promise<ExternalApiKeyDeleted>;
    };
    readonly customEndpoint: {
      set(organizationId: string, input: SetCustomEndpointInput): Promise<CustomEndpoint>;
      get(organizationId: string): Promise<CustomEndpoint>;
      delete(organizationId: string): Promise<{ deleted: boolean; success: true }>;
    };
    check(): Promise<{ key_id: string; reencrypted: number }>;
    reencrypt(): Promise<number>;
    readonly configured: boolean;
  };
  models(): string[];
  listModels(organizationId?: string): Promise<ModelList>;
  jobStats(organizationId?: string): Promise<JobRunnerStats | null>;
  close(): Promise<void>;
}

describe('Docevals (derived)', () => {
  it('keeps the hand-written interface\'s shape, overloads included', () => {
    expectTypeOf<Docevals>().toEqualTypeOf<DocevalsBefore>();
    expectTypeOf<Docevals['evals']['get']>().toEqualTypeOf<DocevalsBefore['evals']['get']>();
    expectTypeOf<Docevals['evals']['iterations']['create']>().toEqualTypeOf<DocevalsBefore['evals']['iterations']['create']>();
  });
});
