import {
  apiCostSchema,
  type Described,
  iterationEventSchema,
  compareInputSchema,
  documentDeltaSchema,
  evaluationComparisonSchema,
  excludedDocumentSchema,
  exportInputSchema,
  fieldDeltaSchema,
  fieldStatsSchema,
  importAnnotationsInputSchema,
  importAnnotationsResultSchema,
  importRowResultSchema,
  iterationFieldsSchema,
  leaderboardInputSchema,
  leaderboardRowSchema,
  leaderboardSchema,
  matrixInputSchema,
  matrixIterationSchema,
  matrixRowSchema,
  matrixSchema,
  meanDeltaSchema,
  documentSummarySchema,
  evaluationSummarySchema,
  evaluationOverviewSchema,
  getEvaluationInputSchema,
  getIterationInputSchema,
  iterationSummarySchema,
  listPredictionsInputSchema,
  predictionWithMetricsSchema,
  createEvaluationInputSchema,
  createIterationInputSchema,
  createProcessorInputSchema,
  DEFAULT_INFERENCE_SETTINGS,
  defaultInferenceSettingsSchema,
  deletedSchema,
  documentInputSchema,
  documentRefInputSchema,
  documentDistancesInputSchema,
  documentDistancesSchema,
  documentSchema,
  ERROR_CODES,
  evaluationRefInputSchema,
  evaluationSchema,
  importedIterationInputSchema,
  inferenceSettingsInputSchema,
  inferenceSettingsSchema,
  itemMetricSchema,
  iterationIdInputSchema,
  iterationRefInputSchema,
  iterationSchema,
  listDocumentsInputSchema,
  listEvaluationsInputSchema,
  listIterationsInputSchema,
  listMetadataSchema,
  listProcessorsInputSchema,
  metadataSchema,
  metricResultsSchema,
  outcomeCountsSchema,
  analysisCountsSchema,
  calibrationSchema,
  calibrationBinSchema,
  pairedDeltaSchema,
  modelListSchema,
  modelSchema,
  predictionSchema,
  processIterationInputSchema,
  processorRefInputSchema,
  processorSchema,
  submitProcessorInputSchema,
  submitResultSchema,
  externalApiKeySchema,
  externalApiKeyDeletedSchema,
  createExternalApiKeyInputSchema,
  externalApiKeyRefInputSchema,
  customEndpointSchema,
  setCustomEndpointInputSchema,
  updateDocumentInputSchema,
  updateEvaluationInputSchema,
  updateIterationInputSchema,
  updateIterationMetadataInputSchema,
  updateProcessorInputSchema,
} from '@docevals/core';
import { z } from '@hono/zod-openapi';

/**
 * The schemas of the OpenAPI document: the core's zod schemas with a description on every property, named
 * components (`.openapi('Name')`) for every resource and shared part, and the defaults and formats a reader needs.
 * They only describe: the core validates every input itself. Each one is the core schema extended property by
 * property, and {@link documented} takes a description for every key of the core schema (a missing one does not
 * compile), so a field added to the core cannot reach the document undescribed.
 */

/** A description of the core's property, or a replacement schema that already carries its own. */
type PropertyDoc = string | z.ZodType;

/** The keys of a core shape whose schemas carry no description of their own (the core's `described()`). */
type Undescribed<S> = { [K in keyof S]-?: S[K] extends Described ? never : K }[keyof S];

/**
 * `schema` with every property described (or replaced); a key of the core schema left out is a compile error, unless
 * the core already describes it (`described()` in the core's schemas: the text next to the type).
 */
export function documented<T extends z.ZodObject>(
  schema: T,
  fields: { [K in Undescribed<T['shape']>]-?: PropertyDoc } & { [K in keyof T['shape']]?: PropertyDoc },
): T {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, doc] of Object.entries(fields) as Array<[string, PropertyDoc]>) {
    if (!(key in schema.shape)) throw new Error(`documented: "${key}" is not a property of the schema.`);
    shape[key] = typeof doc === 'string' ? (schema.shape[key] as z.ZodType).meta({ description: doc }) : doc;
  }
  const result = schema.safeExtend(shape) as unknown as T;
  RESTATED.set(result, schema);
  return result;
}

/** The core schema each {@link documented} restatement restates. */
const RESTATED = new WeakMap<z.ZodType, z.ZodType>();
/** The named component of each core schema that has one (`named(name, documented(coreSchema, ...))`). */
const NAMED_BY_CORE = new Map<z.ZodType, z.ZodType>();

/**
 * The named component restating a core schema, if there is one: an operation whose answer is a core schema that
 * already has a component (a new operation answering `evaluationOverviewSchema`) shows the component, with no entry
 * of its own in openapi-operations.ts.
 */
export const componentOf = (schema: z.ZodType): z.ZodType | undefined => NAMED_BY_CORE.get(schema);

/**
 * A named schema or null. (`.nullable()` on a named schema comes out of the generator as the bare `$ref`, losing
 * the null, so the union is spelled out.)
 */
const orNull = (schema: z.ZodType, description: string) => z.union([schema, z.null()]).meta({ description });

/** Every named schema, in the order they are defined (a part before what holds it): openapi-document.ts registers them. */
export const NAMED_SCHEMAS: Array<[name: string, schema: z.ZodType]> = [];

/**
 * `schema` as the component `name`. Components are registered before any path, so a use that adds its own
 * description ({@link ref}) is written as `{$ref, description}` instead of becoming the component itself.
 */
function named<T extends z.ZodType>(name: string, schema: T, meta: { description: string; examples?: unknown[] }): T {
  const result = schema.openapi(name, meta) as T;
  NAMED_SCHEMAS.push([name, result]);
  const core = RESTATED.get(schema);
  if (core && !NAMED_BY_CORE.has(core)) NAMED_BY_CORE.set(core, result);
  return result;
}

/** A named schema with a description (and a default) of its own where it is used. */
const ref = (schema: z.ZodType, description: string, defaultValue?: unknown) =>
  schema.meta({ description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

const dateTime = (description: string) => z.string().meta({ format: 'date-time', description, examples: ['2026-11-23T19:23:59.958Z'] });

const SCHEMA_ID =
  '`sch_id_` and a hash of the JSON schema exactly as given: changes with any change, descriptions and titles included.';
const SCHEMA_DATA_ID =
  '`sch_data_id_` and a hash of the structure of the JSON schema (types, properties, items), without descriptions, ' +
  'titles, defaults, examples, `x-` fields or `required`. Two schemas that only word their prompts differently ' +
  'share it; once an evaluation has iterations it cannot change (409).';
const JSON_SCHEMA =
  'A JSON Schema (draft 2020-12) of the data to extract. Descriptions, titles and `x-` fields are the prompts; ' +
  'at most 1 MiB and 64 levels deep.';

// Shared parts

export const ErrorCodeSchema = named('ErrorCode', z.enum(ERROR_CODES), {
  description:
    'What went wrong, one code per HTTP status: `bad_request` 400 (malformed JSON), `unauthorized` 401, ' +
    '`not_found` 404 (another organization\'s object included), `method_not_allowed` 405 (the `Allow` header ' +
    'lists the methods of the path), `request_timeout` 408 (the body arrived too slowly), `conflict` 409, `payload_too_large` 413, `unsupported_media_type` 415, ' +
    '`validation_error` 422, `rate_limited` 429 (a per-key request rate or the organization\'s cap on queued and ' +
    'running iterations; `Retry-After` says when to retry), `internal_error` 500, `not_configured` 501 (a feature the host has not set up), ' +
    '`extractor_error` 502, `storage_error` 503.',
});

export const ErrorIssueSchema = named('ErrorIssue', z
  .object({
    path: z.string().meta({
      description: 'Where the problem is, dotted from the request body\'s root (`documents.0.mime_data.url`); `""` is the whole body.',
    }),
    message: z.string().meta({ description: 'What is wrong there, in words.' }),
  }), { description: 'One problem with a request.' });

export const ErrorSchema = named('Error', z
  .object({
    error: z
      .object({
        code: ref(ErrorCodeSchema, 'What went wrong: one code per HTTP status.'),
        message: z.string().meta({ description: 'What went wrong and what to fix, for a person. Never carries internals.' }),
        issues: z
          .array(ErrorIssueSchema)
          .optional()
          .meta({ description: 'Every problem found, with its path: `validation_error` only.' }),
        retry_after: z
          .number()
          .int()
          .optional()
          .meta({ description: 'Seconds after which a retry may pass (the `Retry-After` header\'s value): `rate_limited` only.' }),
      })
      .meta({ description: 'The error.' }),
  }), {
    description: 'The body of every failure.',
    examples: [
      {
        error: {
          code: 'validation_error',
          message: 'Invalid request: inference_settings.temperature: Too big: expected number to be <=2.',
          issues: [{ path: 'inference_settings.temperature', message: 'Too big: expected number to be <=2' }],
        },
      },
    ],
  });

export const ApiCostSchema = named('ApiCost', documented(apiCostSchema, {
  value: 'The cost of the call(s) that produced the data, in `currency`.',
  currency: 'An ISO 4217 currency code (`USD`).',
}), { description: 'What producing the data cost.' });

export const PredictionMetadataSchema = named('PredictionMetadata', documented(metadataSchema, {
  extraction_id: 'The id of the extraction run that produced the data (`extr_...`), or null.',
  likelihoods:
    'Per-field confidence between 0 and 1, in the tree of the data (`{"total": 0.97}`), or null where the model gave none.',
  field_locations: 'Where each field was found in the document, in the tree of the data, when the extractor says so.',
  agentic_field_locations: 'Field locations found by an agentic extractor, in the tree of the data.',
  consensus_details:
    'With `n_consensus` ≥ 2: one object per run, the run\'s raw output (docs/spec/consensus.md). Null for one run.',
  api_cost: orNull(ApiCostSchema, 'What the extraction cost, or null when unknown.').optional(),
  error: 'Why the extraction failed (the prediction is then `{}`); absent when it succeeded.',
}), {
  description:
    'Metadata of a prediction, or of an annotation (`annotation_metadata`). Other keys a host adds are kept as they are.',
});

const SETTINGS_DOCS = {
  model: 'The model that runs (or ran) the extraction.',
  temperature: 'Sampling temperature, 0 to 2.',
  modality: 'How the document reaches the model: `text`, `image` (pages as images), `image+text` or `native` (the file as it is).',
  reasoning_effort: 'Reasoning effort for models that reason; null leaves it to the model.',
  image_resolution_dpi: 'Resolution of pages rendered as images, in dots per inch.',
  browser_canvas: 'Page size text and HTML documents are laid out on when rendered as pages.',
  n_consensus: 'How many times each document is extracted (runs reconciled into one prediction).',
} as const;

/** A setting of a request with its description and the default it takes when left out. */
const settingWithDefault = (key: keyof typeof DEFAULT_INFERENCE_SETTINGS, description: string) =>
  inferenceSettingsInputSchema.shape[key].meta({ description, default: DEFAULT_INFERENCE_SETTINGS[key] });

export const InferenceSettingsInputSchema = named('InferenceSettingsInput', documented(inferenceSettingsInputSchema, {
  model: 'The model to run, as served by one of the host\'s extractors. No default: required unless the evaluation\'s defaults name one.',
  temperature: settingWithDefault('temperature', SETTINGS_DOCS.temperature),
  modality: settingWithDefault('modality', SETTINGS_DOCS.modality),
  reasoning_effort: settingWithDefault('reasoning_effort', SETTINGS_DOCS.reasoning_effort),
  image_resolution_dpi: settingWithDefault('image_resolution_dpi', `${SETTINGS_DOCS.image_resolution_dpi} 36 to 600.`),
  browser_canvas: settingWithDefault('browser_canvas', SETTINGS_DOCS.browser_canvas),
  n_consensus: settingWithDefault('n_consensus', `${SETTINGS_DOCS.n_consensus} 1 to 16.`),
}), {
  description:
    'Inference settings in a request: every field optional. An iteration uses these over the evaluation\'s ' +
    '`default_inference_settings` over the defaults shown.',
});

export const InferenceSettingsSchema = named('InferenceSettings', documented(inferenceSettingsSchema, SETTINGS_DOCS), {
  description: 'The settings an iteration ran with: every one resolved.',
});

export const DefaultInferenceSettingsSchema = named('DefaultInferenceSettings', documented(defaultInferenceSettingsSchema, {
  ...SETTINGS_DOCS,
  model: 'The default model; absent when the evaluation names none (each iteration must then name one).',
}), {
  description: 'An evaluation\'s default inference settings, every default filled in.',
});

export const ListMetadataSchema = named('ListMetadata', documented(listMetadataSchema, {
  before: 'Pass as `before` to get the page before this one; null on the first page.',
  after: 'Pass as `after` to get the next page; null on the last page.',
}), { description: 'The cursors of a page: ids of the first and last item, where more items exist.' });

export const DeletedSchema = named('Deleted', documented(deletedSchema, {
  id: 'The id of the deleted object.',
  deleted: 'Always true.',
  success: 'Always true: `deleted` again, for clients typed after the reference SDK (`{success, id}`).',
}), { description: 'A deletion\'s answer.' });

// Documents

const responseMimeData = named('MimeData', documented(documentSchema.shape.mime_data, {
  filename: 'The file name.',
  url: 'The file\'s content as a base64 data URL (`data:<mime>;base64,...`), rebuilt from the file store.',
}), { description: 'A file: its name and its content.' });

export const EvaluationDocumentSchema = named('EvaluationDocument', documented(documentSchema, {
  id: 'The document\'s id: its `file_id`, a hash of its content (`file_...`). The same file has the same id everywhere.',
  mime_data: ref(responseMimeData, 'The file.'),
  annotation: 'The ground truth: what a perfect extraction returns, in the shape of the evaluation\'s json_schema.',
  annotation_metadata: orNull(PredictionMetadataSchema, 'Metadata of the annotation, or null.'),
}), { description: 'A document of an evaluation, with its ground-truth annotation.' });

const inputMimeData = named('MimeDataInput', documented(documentInputSchema.shape.mime_data, {
  filename: 'The file name (1 to 1024 characters); its extension and the data URL\'s media type tell the file type.',
  url: 'The content as a base64 data URL (`data:application/pdf;base64,...`). Leave out to refer to a stored file by `file_id`.',
  file_id: 'A file this organization already stored (a document `id` from a response), instead of `url`.',
}), { description: 'A file: its name, and either its content (`url`) or a stored file (`file_id`).' });

export const DocumentInputSchema = named('DocumentInput', documented(documentInputSchema, {
  id: 'The `file_id` of a stored file, to refer to it instead of sending `mime_data.url`; when `url` is sent too, it must match the content.',
  mime_data: ref(inputMimeData, 'The file: its content, or a stored one.'),
  annotation: 'The ground truth, in the shape of the evaluation\'s json_schema. Defaults to `{}`.',
  annotation_metadata: orNull(PredictionMetadataSchema, 'Metadata of the annotation.').optional(),
}), { description: 'A document in a request: its file and its ground-truth annotation.' });

// Iterations

const SCHEMA_VALID =
  'Whether the prediction validates against the iteration\'s json_schema. A malformed prediction is still scored ' +
  'field by field; absent when there is nothing to check (failed, pending) or it was stored before the check.';
const SCHEMA_ISSUES = z
  .array(
    z.object({
      path: z.string().meta({ description: 'Where in the prediction: a dotted path (`items.0.price`), `""` for the whole.' }),
      message: z.string().meta({ description: 'What the schema says is wrong there.' }),
    }),
  )
  .optional()
  .meta({ description: 'When `schema_valid` is false: the first issues (at most 5).' });

export const OutcomeCountsSchema = named('OutcomeCounts', documented(outcomeCountsSchema, {
  documents: 'Documents in the evaluation.',
  succeeded: 'Labeled documents with a prediction.',
  failed: 'Labeled documents whose extraction failed: each counts 0 in the means.',
  unlabeled: 'Documents without ground truth (annotation `{}` or only empty values), whatever their outcome: in no mean.',
  pending: 'Labeled documents without an outcome yet.',
}), { description: 'An iteration\'s documents by outcome, as its figures count them (docs/spec/metrics.md section 5).' });

const HONEST_FIGURES = {
  mean_similarity:
    'Mean `similarity` over the labeled documents that finished, a failed one counting 0 (docs/spec/metrics.md ' +
    'section 5); unlabeled documents are in no mean. 0 when none finished; 1 for an evaluation without documents.',
  aligned_mean_similarity: 'The same over `aligned_similarity`.',
  metric_type: 'The similarity measure of strings: normalized Levenshtein distance.',
  succeeded_mean_similarity: 'Mean `similarity` over the labeled succeeded documents only; null when none.',
  succeeded_aligned_mean_similarity: 'The same over `aligned_similarity`.',
  coverage: 'succeeded / (succeeded + failed) over labeled documents; null when none finished.',
  schema_valid_rate: 'Share of the succeeded predictions that validate against the json_schema; null when none.',
  counts: ref(OutcomeCountsSchema, 'Documents by outcome.'),
  partial: 'True while labeled documents have no outcome yet (the run goes on, or documents were added): the figures cover the finished ones.',
} as const;

export const PredictionSchema = named('Prediction', documented(predictionSchema, {
  document_id: 'The document this prediction is for (its `id`).',
  prediction: 'The extracted data, in the shape of the iteration\'s json_schema; `{}` when the extraction failed or has not run.',
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made; null for a document that has not run yet.'),
  schema_valid: SCHEMA_VALID,
  schema_issues: SCHEMA_ISSUES,
}), { description: 'An iteration\'s prediction for one document.' });

const SIMILARITY_TREE = 'Per-field similarity (0 to 1) in the tree of the annotation: objects and arrays hold the similarities of their items.';

export const ItemMetricSchema = named('ItemMetric', documented(itemMetricSchema, {
  id: 'The document\'s id.',
  name: 'The document\'s file name.',
  similarity: 'Similarity of the prediction to the annotation, 0 (nothing right) to 1 (identical): the mean of the leaves.',
  similarities: SIMILARITY_TREE,
  flat_similarities: 'The same similarities keyed by dotted path (`items.0.price`).',
  aligned_similarity: 'Similarity after matching list items to their closest counterpart, ignoring order (docs/spec/metrics.md).',
  aligned_similarities: `${SIMILARITY_TREE} With list items aligned.`,
  aligned_flat_similarities: 'The aligned similarities keyed by dotted path.',
  alignment:
    'Present as `positional_fallback` when aligning this document\'s lists would have passed the work budget ' +
    '(docs/spec/limits.md): the aligned figures are then the positional ones.',
  levenshtein:
    'Present as `equality_fallback` when comparing this document\'s strings would have passed the Levenshtein work ' +
    'budget (docs/spec/limits.md): strings compared past it score 1 when equal after normalization, else 0.',
}), { description: 'How close one document\'s prediction is to its annotation.' });

export const MetricResultsSchema = named('MetricResults', documented(metricResultsSchema, {
  item_metrics: z.array(ItemMetricSchema).meta({ description: 'One per document of the evaluation, in document order.' }),
  ...HONEST_FIGURES,
}), { description: 'An iteration\'s metrics against the annotations.' });

export const IterationProgressSchema = named('IterationProgress', documented(iterationSummarySchema.shape.progress, {
  total: 'Documents in the evaluation now.',
  succeeded: 'Documents with a prediction whose extraction succeeded: the ones the means are over.',
  failed: 'Documents whose extraction failed (the reason is in their prediction\'s `metadata.error`).',
  pending: 'Documents without a prediction yet: added after the iteration ran, or not run yet.',
}), { description: 'An iteration\'s documents by outcome.' });

export const IterationUsageSchema = named('IterationUsage', documented(iterationSummarySchema.shape.usage, {
  input_tokens: 'Input tokens of every prediction, summed as the extractors reported them.',
  output_tokens: 'Output tokens, summed likewise.',
  cost: 'The predictions\' `api_cost.value`, summed (0 where no price is known).',
}), { description: 'What an iteration consumed.' });

export const IterationSchema = named('Iteration', documented(iterationSchema, {
  id: 'The iteration\'s id (`eval_iter_...`), unique within the organization.',
  updated_at: dateTime('When the iteration last changed (ISO 8601, UTC).'),
  inference_settings: ref(InferenceSettingsSchema, 'The settings it ran with: its request\'s over the evaluation\'s defaults over the service\'s.'),
  json_schema: 'The JSON Schema the iteration extracted with: the evaluation\'s, or its own with the same schema_data_id.',
  predictions: z.array(PredictionSchema).meta({ description: 'One per document of the evaluation, in document order.' }),
  metric_results: ref(MetricResultsSchema, 'Its predictions scored against the annotations.'),
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
  status: '`queued`, `running`, `completed`, `failed` (every document failed, or the run stopped on an error) or `cancelled` (docs/spec/jobs.md).',
  progress: ref(IterationProgressSchema, 'Its documents by outcome.'),
  started_at: orNull(dateTime('When the last run started.'), 'When the last run started; null before it did.'),
  finished_at: orNull(dateTime('When the last run finished.'), 'When the last run finished; null while it runs.'),
  error: 'Why the whole iteration failed; null otherwise.',
  usage: ref(IterationUsageSchema, 'Tokens and cost so far.'),
}), { description: 'A run of extraction over an evaluation\'s documents, with its predictions and metrics.' });


export const IterationSummarySchema = named('IterationSummary', documented(iterationSummarySchema, {
  id: 'The iteration\'s id (`eval_iter_...`), unique within the organization.',
  updated_at: dateTime('When the iteration last changed (ISO 8601, UTC).'),
  created_at: dateTime('When the iteration was created (ISO 8601, UTC).'),
  inference_settings: ref(InferenceSettingsSchema, 'The settings it runs with.'),
  json_schema: 'The JSON Schema the iteration extracts with.',
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
  status: '`queued`, `running`, `completed`, `failed` (every document failed, or the run stopped on an error) or `cancelled`.',
  started_at: orNull(dateTime('When the last run started.'), 'When the last run started; null before it did.'),
  finished_at: orNull(dateTime('When the last run finished.'), 'When the last run finished; null while it runs.'),
  error: 'Why the whole iteration failed; null otherwise.',
  progress: ref(IterationProgressSchema, 'Its documents by outcome.'),
  usage: ref(IterationUsageSchema, 'Tokens and cost so far.'),
  metric_results: documented(iterationSummarySchema.shape.metric_results, HONEST_FIGURES).meta({
    description: 'The figures, read from running totals.',
  }),
}), { description: 'An iteration without its per-document arrays (`?view=summary`): settings, status, progress, usage and means.' });

export const PredictionWithMetricsSchema = named('PredictionWithMetrics', documented(predictionWithMetricsSchema, {
  document_id: 'The document the prediction belongs to (its `file_id`).',
  prediction: 'The extracted data (`{}` while pending or after a failure).',
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made; null while pending.'),
  schema_valid: SCHEMA_VALID,
  schema_issues: SCHEMA_ISSUES,
  status: '`succeeded`, `failed` or `pending` (no prediction yet).',
  metrics: ref(ItemMetricSchema, 'The prediction scored against the document\'s current annotation.'),
}), { description: 'One document\'s outcome in an iteration, with its metrics.' });

export const IterationViewSchema = named('IterationView', z.union([IterationSchema, IterationSummarySchema]), {
  description: 'An iteration: whole (the default), or its summary with `view=summary`.',
});

// Evaluations

export const EvaluationSchema = named('Evaluation', documented(evaluationSchema, {
  id: 'The evaluation\'s id (`eval_...`, or the one the creator chose).',
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  name: 'A name for people.',
  project_id: 'A free grouping key (`""` when none); filter lists with it.',
  documents: z.array(EvaluationDocumentSchema).meta({ description: 'The documents with their annotations, in order.' }),
  iterations: z.array(IterationSchema).meta({ description: 'Every iteration, oldest first.' }),
  json_schema: JSON_SCHEMA,
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from; a request\'s settings go over them.'),
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
}), { description: 'Documents with ground-truth annotations, a JSON schema, and the iterations run over them.' });


const UNLABELED_COUNT = 'Documents without ground truth (annotation `{}` or only empty values): in no mean until annotated.';

export const DocumentSummarySchema = named('DocumentSummary', documented(documentSummarySchema, {
  id: 'The document\'s id: its `file_id`.',
  filename: 'The file name it came with.',
  mime_type: 'The media type of its content.',
  size: 'The size of its content in bytes.',
  mime_data: ref(named('MimeDataLink', documented(documentSummarySchema.shape.mime_data, {
    filename: 'The file name.',
    url:
      'The path of the file\'s content on this server, `/v1/evals/{evaluation_id}/documents/{document_id}/content` ' +
      'under the API\'s base path when it is mounted under one (`/evals/v1/...`), authenticated like every call; not a ' +
      'data URL: lists stay light.',
  }), { description: 'A file: its name and where to read its content.' }), 'The interface\'s `{filename, url}`, the url a path to the content.'),
}), { description: 'A document in a list: no annotation, no content (`expand=documents` for those).' });

export const EvaluationSummarySchema = named('EvaluationSummary', documented(evaluationSummarySchema, {
  id: 'The evaluation\'s id.',
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  name: 'A name for people.',
  project_id: 'A free grouping key (`""` when none).',
  document_count: 'How many documents the evaluation holds.',
  unlabeled_count: UNLABELED_COUNT,
  documents: z.array(z.union([DocumentSummarySchema, EvaluationDocumentSchema])).meta({ description: 'Summaries, or whole documents with `expand=documents`.' }),
  iterations: z.array(IterationSummarySchema).meta({ description: 'Every iteration as a summary, oldest first.' }),
  json_schema: JSON_SCHEMA,
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from.'),
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
}), { description: 'An evaluation in a list: documents and iterations as summaries.' });

export const EvaluationOverviewSchema = named('EvaluationOverview', documented(evaluationOverviewSchema, {
  id: 'The evaluation\'s id.',
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  name: 'A name for people.',
  project_id: 'A free grouping key (`""` when none).',
  document_count: 'How many documents the evaluation holds.',
  unlabeled_count: UNLABELED_COUNT,
  iterations: z.array(IterationSummarySchema).meta({ description: 'Every iteration as a summary, oldest first.' }),
  json_schema: JSON_SCHEMA,
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from.'),
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
}), {
  description:
    'An evaluation without its documents (`view=summary`): its count, and the iterations as summaries. Its cost does ' +
    'not grow with the documents.',
});

export const EvaluationViewSchema = named('EvaluationView', z.union([EvaluationSchema, EvaluationOverviewSchema]), {
  description: 'An evaluation: whole (the default), or without its documents with `view=summary`.',
});

// Processors

export const ProcessorSchema = named('Processor', documented(processorSchema, {
  ...SETTINGS_DOCS,
  object: 'Always `processor`.',
  id: 'The processor\'s id (`proc_...`, or the one the creator chose).',
  updated_at: dateTime('When the processor last changed (ISO 8601, UTC).'),
  name: 'A name for people.',
  json_schema: JSON_SCHEMA,
  organization_id: 'The organization that owns the processor (the one of the key that created it).',
  schema_data_id: SCHEMA_DATA_ID,
  schema_id: SCHEMA_ID,
}), { description: 'A named, reusable extraction configuration.' });

// The plain fields are described in the core (described()); here only what names a component or wraps a union.
export const SubmitResultSchema = named('SubmitResult', documented(submitResultSchema, {
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made.'),
  choices: z.array(documented(submitResultSchema.shape.choices.element, {
    message: documented(submitResultSchema.shape.choices.element.shape.message, {}).meta({ description: 'The prediction, parsed and as text.' }),
  })).meta({ description: 'One choice whose `message.parsed` is the prediction.' }),
  usage: z.union([documented(submitResultSchema.shape.usage.unwrap(), {}), z.null()]).meta({
    description: 'Tokens of the extraction (summed over consensus runs); null when the extractor reports none.',
  }),
  api_cost: orNull(ApiCostSchema, 'The cost; null when the model\'s price is unknown.'),
}), { description: 'A processor\'s extraction of one document: `{prediction, metadata}` and, beside them, the reference SDK\'s chat completion shape (`RetabParsedChatCompletion`).' });

// Lists

const list = (item: z.ZodType, name: string, what: string) =>
  named(
    name,
    z.object({
      data: z.array(item).meta({ description: `The ${what} of this page, in the requested order.` }),
      list_metadata: ref(ListMetadataSchema, 'The cursors of the pages before and after this one.'),
    }),
    { description: `A page of ${what}.` },
  );

export const EvaluationListSchema = list(EvaluationSummarySchema, 'EvaluationList', 'evaluations');
export const DocumentListSchema = list(z.union([DocumentSummarySchema, EvaluationDocumentSchema]), 'EvaluationDocumentList', 'documents');
export const PredictionPageSchema = list(PredictionWithMetricsSchema, 'PredictionPage', 'predictions');
export const ProcessorListSchema = list(ProcessorSchema, 'ProcessorList', 'processors');
export const IterationListSchema = named('IterationList', z
  .object({ data: z.array(z.union([IterationSchema, IterationSummarySchema])).meta({ description: 'Every iteration of the evaluation, oldest first: whole, or summaries with `view=summary`.' }) }), { description: 'An evaluation\'s iterations (not paginated: at most 1,000).' });

// Parameters

const EVALUATION_ID = 'The evaluation\'s id.';
const DOCUMENT_ID = 'The document\'s id: its `file_id` (`file_...`), as in the document\'s `id`.';
const ITERATION_ID = 'The iteration\'s id (`eval_iter_...`).';
const PROCESSOR_ID = 'The processor\'s id.';

export const EvaluationPathSchema = documented(evaluationRefInputSchema, { evaluation_id: EVALUATION_ID });
export const DocumentPathSchema = documented(documentRefInputSchema, { evaluation_id: EVALUATION_ID, document_id: DOCUMENT_ID });
export const IterationPathSchema = documented(iterationRefInputSchema, { evaluation_id: EVALUATION_ID, iteration_id: ITERATION_ID });
export const ProcessorPathSchema = documented(processorRefInputSchema, { processor_id: PROCESSOR_ID });
export const IterationIdPathSchema = documented(iterationIdInputSchema, {
  iteration_id: `${ITERATION_ID} Ids are unique within the organization, so the evaluation is found from it.`,
});
export const DistancesPathSchema = documented(iterationIdInputSchema.extend({ document_id: documentDistancesInputSchema.shape.document_id }), {
  iteration_id: IterationIdPathSchema.shape.iteration_id,
  document_id: DOCUMENT_ID,
});

const LIST_QUERY = {
  limit: 'How many items a page holds, 1 to 100.',
  order: 'By `updated_at` then id: `desc` (newest first, the default) or `asc`.',
  before: 'A cursor: the `list_metadata.before` of the current page, for the page before it.',
  after: 'A cursor: the `list_metadata.after` of the current page, for the page after it.',
} as const;

export const ListEvaluationsQuerySchema = documented(listEvaluationsInputSchema, {
  ...LIST_QUERY,
  project_id: 'Only evaluations with this project_id (exact match).',
  name: 'Only evaluations with this name (exact match).',
  schema_id: 'Only evaluations whose json_schema has this schema_id (the exact schema).',
  schema_data_id: 'Only evaluations whose json_schema has this schema_data_id (the same structure).',
  expand: '`documents`: whole documents (annotation and content as a data URL) instead of summaries; at most 10 per page then.',
});

export const ListDocumentsQuerySchema = documented(listDocumentsInputSchema.omit({ evaluation_id: true }), {
  ...LIST_QUERY,
  order: 'In the evaluation\'s document order (`asc`, the default) or its reverse (`desc`).',
  expand: '`documents`: whole documents (annotation and content as a data URL) instead of summaries; at most 10 per page then.',
});

const VIEW = '`full` (the default: every prediction and item metric) or `summary` (settings, status, progress, usage and means only).';

export const ListIterationsQuerySchema = documented(listIterationsInputSchema.omit({ evaluation_id: true }), {
  model: 'Only iterations whose inference_settings.model is exactly this.',
  view: VIEW,
});

export const GetEvaluationQuerySchema = documented(getEvaluationInputSchema.omit({ evaluation_id: true }), {
  view:
    '`full` (the default: every document with its content, every iteration whole) or `summary` (the evaluation ' +
    'without its documents: `document_count`, iterations as summaries).',
});

export const GetIterationQuerySchema = documented(getIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }), { view: VIEW });

export const ListPredictionsQuerySchema = documented(listPredictionsInputSchema.omit({ evaluation_id: true, iteration_id: true }), {
  limit: 'How many predictions a page holds, 1 to 1,000 (100).',
  after: 'A cursor: the `list_metadata.after` of the current page (a document id), for the page after it.',
  document_ids: listPredictionsInputSchema.shape.document_ids.meta({
    description:
      'Only these documents (1 to 10,000 ids, comma-separated: `document_ids=file_a,file_b`; repeating the parameter ' +
      'works too), in this order, each once; `limit` and `after` page through them. Each is read by its id, not ' +
      'found by paging. An id that is not a document of the evaluation is a 422 naming it (`document_ids.<index>`). ' +
      "The URL's length is bounded by the host (Node: 16 KiB of request line and headers, about 700 ids).",
    param: { style: 'form', explode: false },
  }),
});

export const ListProcessorsQuerySchema = documented(listProcessorsInputSchema, {
  ...LIST_QUERY,
  name: 'Only processors with this name (exact match).',
  modality: 'Only processors with this modality.',
  model: 'Only processors with this model (exact match).',
  schema_id: 'Only processors whose json_schema has this schema_id (the exact schema).',
  schema_data_id: 'Only processors whose json_schema has this schema_data_id (the same structure).',
});

// Request bodies

const ImportedPredictionSchema = named('ImportedPrediction', documented(importedIterationInputSchema.shape.predictions.unwrap().element, {
  document_id: 'The document it belongs to; left out, predictions match documents by position.',
  prediction: 'The extracted data. Defaults to `{}`.',
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made.').optional(),
}), { description: 'A prediction imported as it is.' });

export const ImportedIterationSchema = named('ImportedIteration', documented(importedIterationInputSchema, {
  id: 'The iteration\'s id; one is made when left out.',
  inference_settings: ref(InferenceSettingsInputSchema, 'The settings it ran with.', {}).optional(),
  json_schema: 'The JSON Schema it ran with: defaults to the evaluation\'s; must have the same schema_data_id.',
  predictions: z.array(ImportedPredictionSchema).default([]).meta({ description: 'One per document; their metrics are computed.' }),
}), { description: 'An iteration run elsewhere, imported with its predictions.' });

export const CreateEvaluationBodySchema = named('CreateEvaluationRequest', documented(createEvaluationInputSchema, {
  id: 'An id of your choice (1 to 128 of `A-Z a-z 0-9 _ -`), unused in the organization; one is made when left out.',
  name: 'A name for people, 1 to 512 characters.',
  project_id: 'A free grouping key, up to 256 characters. Defaults to `""`.',
  documents: z.array(DocumentInputSchema).default([]).meta({ description: 'The documents with their annotations (at most 10,000). Their files are stored once.' }),
  iterations: z.array(ImportedIterationSchema).default([]).meta({ description: 'Iterations to import as they are.' }),
  json_schema: JSON_SCHEMA,
  default_inference_settings: ref(InferenceSettingsInputSchema, 'Settings every iteration starts from.', {}).optional(),
  validate: 'Check each annotation against the evaluation\'s JSON schema (`required` not enforced): a mismatch is a 422 naming the path. Default true; false stores it unchecked.',
}), { description: 'A new evaluation. `updated_at`, `schema_id` and `schema_data_id` are computed; values sent for them are ignored.' });

export const UpdateEvaluationBodySchema = named('UpdateEvaluationRequest', documented(updateEvaluationInputSchema.omit({ evaluation_id: true }), {
  name: 'A new name, 1 to 512 characters.',
  project_id: 'A new project_id.',
  json_schema: `${JSON_SCHEMA} With iterations, its schema_data_id must stay the same (409 otherwise).`,
  default_inference_settings: ref(InferenceSettingsInputSchema, 'New default settings (they replace the old ones).').optional(),
}), { description: 'The fields to change; omitted fields stay as they are.' });

export const AddDocumentBodySchema = DocumentInputSchema;

export const UpdateDocumentBodySchema = named('UpdateDocumentRequest', documented(updateDocumentInputSchema.omit({ evaluation_id: true, document_id: true }), {
  annotation: 'The new ground truth. Every iteration\'s metrics are recomputed.',
  annotation_metadata: orNull(PredictionMetadataSchema, 'New metadata of the annotation; left out, it stays.').optional(),
  validate: 'Check each annotation against the evaluation\'s JSON schema (`required` not enforced): a mismatch is a 422 naming the path. Default true; false stores it unchecked.',
}), { description: 'A document\'s new annotation.' });

export const CreateIterationBodySchema = named('CreateIterationRequest', documented(createIterationInputSchema.omit({ evaluation_id: true }), {
  inference_settings: ref(InferenceSettingsInputSchema, 'The settings to run with, over the evaluation\'s defaults.', {}).optional(),
  json_schema: 'A JSON Schema for this iteration only (other prompts): it must have the evaluation\'s schema_data_id. Defaults to the evaluation\'s.',
  background: '`true`: answer at once (202 with the iteration summary and a `Location`) and run in the server; follow it on `.../events`. Default false: answer when every document has run.',
}), { description: 'The settings of a new iteration.' });

export const ProcessIterationBodySchema = named('ProcessIterationRequest', documented(processIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }), {
  document_ids: 'Re-run only these documents (their ids); left out, every document.',
  only_missing: 'Re-run only the documents without a prediction yet (pending ones, or those whose extraction failed). Default false.',
  background: '`true`: answer at once (202 with the iteration summary and a `Location`) and run in the server; follow it on `.../events`. Default false: answer when every document has run.',
}), { description: 'Which documents of the iteration to re-run; an empty body re-runs them all.' });

const PROCESSOR_FIELDS = {
  name: 'A name for people, 1 to 512 characters.',
  model: InferenceSettingsInputSchema.shape.model,
  json_schema: JSON_SCHEMA,
  modality: InferenceSettingsInputSchema.shape.modality,
  image_resolution_dpi: InferenceSettingsInputSchema.shape.image_resolution_dpi,
  browser_canvas: InferenceSettingsInputSchema.shape.browser_canvas,
  temperature: InferenceSettingsInputSchema.shape.temperature,
  reasoning_effort: InferenceSettingsInputSchema.shape.reasoning_effort,
  n_consensus: InferenceSettingsInputSchema.shape.n_consensus,
};

export const CreateProcessorBodySchema = named('CreateProcessorRequest', documented(createProcessorInputSchema, {
  ...PROCESSOR_FIELDS,
  id: 'An id of your choice (1 to 128 of `A-Z a-z 0-9 _ -`), unused in the organization; one is made when left out.',
  model: createProcessorInputSchema.shape.model.meta({ description: 'The model to run, as served by one of the host\'s extractors.' }),
}), { description: 'A new processor: name, model and json_schema required, the other settings default.' });

export const UpdateProcessorBodySchema = named('UpdateProcessorRequest', documented(updateProcessorInputSchema.omit({ processor_id: true }), {
  ...PROCESSOR_FIELDS,
  modality: updateProcessorInputSchema.shape.modality.meta({ description: SETTINGS_DOCS.modality }),
  image_resolution_dpi: updateProcessorInputSchema.shape.image_resolution_dpi.meta({ description: SETTINGS_DOCS.image_resolution_dpi }),
  browser_canvas: updateProcessorInputSchema.shape.browser_canvas.meta({ description: SETTINGS_DOCS.browser_canvas }),
  temperature: updateProcessorInputSchema.shape.temperature.meta({ description: SETTINGS_DOCS.temperature }),
  reasoning_effort: updateProcessorInputSchema.shape.reasoning_effort.meta({ description: SETTINGS_DOCS.reasoning_effort }),
  n_consensus: updateProcessorInputSchema.shape.n_consensus.meta({ description: SETTINGS_DOCS.n_consensus }),
}), { description: 'The fields to change; omitted fields stay as they are.' });

export const SubmitDocumentBodySchema = named('SubmitDocumentRequest', documented(submitProcessorInputSchema.omit({ processor_id: true }), {
  document: ref(named('SubmittedDocument', documented(submitProcessorInputSchema.shape.document, {
    filename: 'The file name; its extension and the data URL\'s media type tell the file type.',
    url: 'The content as a base64 data URL (`data:application/pdf;base64,...`).',
  }), { description: 'A document to extract: its name and content.' }), 'The document to extract.'),
}), { description: 'One document to run the processor on. Nothing is stored.' });

export const SubmitDocumentFormSchema = named(
  'SubmitDocumentForm',
  z.object({
    document: z.string().meta({ contentMediaType: 'application/octet-stream', description: 'The file to extract; its part\'s Content-Type and file name are kept.' }),
    temperature: z.string().optional().meta({ description: 'Accepted for the reference SDK; not used (the processor\'s temperature applies).' }),
    seed: z.string().optional().meta({ description: 'Accepted for the reference SDK; not used.' }),
    store: z.string().optional().meta({ description: 'Accepted for the reference SDK; not used (a submit stores nothing).' }),
  }),
  { description: 'One document to run the processor on, as a form: the reference SDK\'s request.' },
);

/** The labels' own descriptions are the core's (`described()`): only the component's name and text here. */
export const UpdateIterationMetadataBodySchema = named(
  'UpdateIterationMetadataRequest',
  documented(updateIterationMetadataInputSchema.omit({ evaluation_id: true, iteration_id: true }), {}),
  { description: 'The labels to change: omitted ones stay, null or `[]` clears one. Nothing is extracted again.' },
);

export const UpdateIterationBodySchema = named(
  'UpdateIterationRequest',
  documented(updateIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }), {
    inference_settings: ref(InferenceSettingsInputSchema, 'Settings to change; the ones left out keep the iteration\'s values.').optional(),
    json_schema: 'A new JSON Schema for the iteration (other prompts): it must keep the evaluation\'s schema_data_id (409 otherwise).',
  }),
  {
    description:
      'What to change in an iteration. When the settings or the schema change, every document is extracted again; ' +
      'other fields (a whole Iteration, as the reference SDK sends it) are ignored.',
  },
);

export const DocumentDistancesSchema = named(
  'DocumentDistances',
  documented(documentDistancesSchema, {
    distances: 'Per-field distance, 1 − similarity (0 = identical, 1 = nothing in common), in the tree of the item metric\'s `similarities`.',
    mean_distance: 'The document\'s distance: 1 − its `similarity`.',
    metric_type: 'The similarity measure of strings: normalized Levenshtein distance.',
  }),
  { description: 'How far one document\'s prediction is from its annotation in an iteration.' },
);

export const HealthSchema = named('Health', z
  .object({
    status: z.literal('ok').meta({ description: 'Always `ok` when the server answers.' }),
    jobs: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .meta({
        description:
          'With `?detail=true` (and a key): what the job runner reports, null for the in-process runner. The BullMQ ' +
          'runner: `runner`, `workers` (worker processes connected), `plans` `{depth, running}` and `models`, per ' +
          'model `{depth, running, completed, failed}` (documents queued, running, recorded succeeded, recorded failed).',
      }),
  }), { description: 'The server is up.' });

// Models

export const ModelSchema = named('Model', documented(modelSchema, {
  id: 'The exact model name, or the pattern as registered: a `*` glob (`gpt-*`) or a RegExp written `/source/flags`.',
  extractor: 'The `name` of the extractor that serves it.',
  pattern: 'True when `id` is a pattern that matches many names, false for one exact name.',
  modalities: 'The modalities the extractor reads with this model (`text`, `image`, `image+text`, `native`); null when the extractor does not say.',
  provider:
    'The provider that serves it for the calling organization, with its own key or the host\'s (`OpenAI`, `Anthropic`, ' +
    '`Gemini`, `xAI`, `custom` for its own endpoint); null for a model that needs no provider key.',
}), { description: 'A model (or a pattern of model names) the calling organization can run now on this host.' });

export const ModelListSchema = named('ModelList', documented(modelListSchema, {
  data: z.array(ModelSchema).meta({ description: 'Every entry, in routing order: the first extractor that serves a name wins.' }),
}), { description: 'The models this host serves.' });

// Analyses (docs/spec/analysis.md)

const FIELD = 'The field: a leaf path of the metrics with list items written `*` (`line_items.*.amount`).';

export const AnalysisCountsSchema = named('AnalysisCounts', documented(analysisCountsSchema, {
  succeeded: 'Labeled documents with a prediction.',
  failed: 'Labeled documents whose extraction failed: each counts 0.',
  unlabeled: 'Documents without ground truth: in no figure.',
  pending: 'Labeled documents without a prediction yet: in no figure.',
}), { description: 'Documents by outcome (docs/spec/analysis.md).' });

export const CalibrationBinSchema = named('CalibrationBin', documented(calibrationBinSchema, {
  lower: 'Lowest likelihood of the bin (included).',
  upper: 'Highest likelihood of the bin (excluded, except 1 in the last bin).',
  count: 'Scored leaves whose likelihood falls in the bin.',
  mean_likelihood: 'Their mean likelihood; null when the bin is empty.',
  exact_rate: 'Share of them that scored 1 (exact); null when the bin is empty.',
}), { description: 'One bin of a reliability table.' });

export const CalibrationSchema = named('Calibration', documented(calibrationSchema, {
  ece: 'Expected calibration error: Σ count/total × |mean_likelihood − exact_rate| over the bins, 0 (calibrated) to 1.',
  bins: z.array(CalibrationBinSchema).meta({ description: 'Ten bins of 0.1, lowest first.' }),
}), { description: 'How far the likelihoods (consensus or logprobs) match how often the fields are exact (docs/spec/analysis.md).' });

export const PairedDeltaSchema = named('PairedDelta', documented(pairedDeltaSchema, {
  n: 'Documents paired (in both iterations).',
  delta: 'Mean of head − base over them.',
  ci_low: 'Lower end of the 95% paired bootstrap interval (2,000 resamples, seeded: the same input gives the same interval).',
  ci_high: 'Upper end of the interval.',
  significant: 'True when the interval excludes 0.',
}), { description: 'A paired delta with its 95% bootstrap confidence interval (docs/spec/analysis.md, Comparison).' });

export const FieldStatsSchema = named('FieldStats', documented(fieldStatsSchema, {
  field: FIELD,
  documents: 'Labeled documents that finished in which the field was scored (a failed one: every field of its annotation).',
  mean_similarity: 'Mean over those documents of the field\'s mean score in each, a failed document counting 0; null when none scored it.',
  aligned_mean_similarity: 'The same over the aligned scores (list items matched ignoring order).',
  exact: 'Documents where every score of the field is 1.',
  missing: 'Documents where the annotation fills the field and the prediction does not.',
  unexpected: 'Documents where the prediction fills the field and the annotation does not.',
  partial: 'The other documents: both sides have something, not all of it right.',
  failed: 'Documents whose extraction failed: the field counts 0 in them.',
  calibration: orNull(CalibrationSchema, 'The field\'s reliability table; null when no prediction carried likelihoods for it.'),
}), { description: 'How one field fared over an iteration\'s labeled documents.' });

export const IterationFieldsSchema = named('IterationFields', documented(iterationFieldsSchema, {
  iteration_id: 'The iteration summarized.',
  fields: z.array(FieldStatsSchema).meta({ description: 'Every field, worst first (by mean similarity; fields nobody scored last).' }),
  documents: 'Labeled documents summarized: succeeded ones, and failed ones counting 0.',
  counts: ref(AnalysisCountsSchema, 'Documents by outcome.'),
  calibration: orNull(CalibrationSchema, 'Every scored leaf with a likelihood, all fields together; null without likelihoods.'),
}), { description: 'Per-field summary of an iteration.' });

export const FieldDeltaSchema = named('FieldDelta', documented(fieldDeltaSchema, {
  field: FIELD,
  documents: 'Compared documents in which the field was scored on both sides.',
  base_mean: 'The field\'s mean in the base iteration, over the compared documents.',
  head_mean: 'The field\'s mean in the head iteration, over the compared documents.',
  delta: 'head_mean − base_mean: below 0 the field got worse.',
  base_aligned_mean: 'The aligned mean in the base iteration.',
  head_aligned_mean: 'The aligned mean in the head iteration.',
  aligned_delta: 'head_aligned_mean − base_aligned_mean.',
  paired: orNull(PairedDeltaSchema, 'The paired delta over the compared documents that scored the field on both sides, with its interval; null when none did.'),
}), { description: 'One field in a comparison of two iterations.' });

export const DocumentDeltaSchema = named('DocumentDelta', documented(documentDeltaSchema, {
  document_id: 'The document (its `file_id`).',
  filename: 'Its file name.',
  base_similarity: 'Its similarity in the base iteration.',
  head_similarity: 'Its similarity in the head iteration.',
  delta: 'head_similarity − base_similarity.',
  base_aligned_similarity: 'Its aligned similarity in the base iteration.',
  head_aligned_similarity: 'Its aligned similarity in the head iteration.',
  aligned_delta: 'head_aligned_similarity − base_aligned_similarity.',
}), { description: 'One document in a comparison of two iterations.' });

export const ExcludedDocumentSchema = named('ExcludedDocument', documented(excludedDocumentSchema, {
  document_id: 'The document (its `file_id`).',
  filename: 'Its file name.',
  base_status: 'Its outcome in the base iteration: `succeeded`, `failed`, `pending`, or `unlabeled` (no ground truth).',
  head_status: 'Its outcome in the head iteration.',
}), { description: 'A document left out of a comparison: unlabeled, or pending in one of the iterations.' });

export const MeanDeltaSchema = named('MeanDelta', documented(meanDeltaSchema, {
  base: 'The figure of the base iteration (null when unknown).',
  head: 'The figure of the head iteration (null when unknown).',
  delta: 'head − base; null when either is null.',
  paired: orNull(PairedDeltaSchema, 'For the means: the paired delta over the compared documents with its interval; null without documents.').optional(),
}), { description: 'One figure of two iterations and its change.' });

export const EvaluationComparisonSchema = named('IterationComparison', documented(evaluationComparisonSchema, {
  base_iteration_id: 'The iteration compared from.',
  head_iteration_id: 'The iteration compared to.',
  threshold: 'A change of a document\'s similarity smaller than this counts as unchanged.',
  compared_documents: 'Labeled documents finished (succeeded or failed) in both iterations, a failed one counting 0: every mean here is over them.',
  base_counts: ref(AnalysisCountsSchema, 'The base iteration\'s documents by outcome.'),
  head_counts: ref(AnalysisCountsSchema, 'The head iteration\'s documents by outcome.'),
  mean_similarity: ref(MeanDeltaSchema, 'Mean similarity over the compared documents.'),
  aligned_mean_similarity: ref(MeanDeltaSchema, 'Mean aligned similarity over the compared documents.'),
  cost: ref(MeanDeltaSchema, 'Summed api cost of each iteration\'s predictions.'),
  failures: ref(MeanDeltaSchema, 'Failed documents in each iteration.'),
  fields: z.array(FieldDeltaSchema).meta({ description: 'Every field, most regressed first.' }),
  moved_fields: z.array(FieldDeltaSchema).meta({ description: 'At most 10 fields whose mean moved most, either way.' }),
  documents: z.array(DocumentDeltaSchema).meta({ description: 'Every compared document, in the evaluation\'s order.' }),
  regressed: z.array(DocumentDeltaSchema).meta({ description: 'Documents worse by more than the threshold, largest drop first.' }),
  improved: z.array(DocumentDeltaSchema).meta({ description: 'Documents better by more than the threshold, largest gain first.' }),
  excluded: z.array(ExcludedDocumentSchema).meta({ description: 'Documents unlabeled, or pending in either iteration: not compared.' }),
}), { description: 'Two iterations of one evaluation compared field by field and document by document.' });

export const LeaderboardRowSchema = named('LeaderboardRow', documented(leaderboardRowSchema, {
  rank: '1 for the first row in the chosen order.',
  iteration_id: 'The iteration.',
  name: 'Its name (`PATCH .../metadata`), or null: what to show instead of its id.',
  model: 'Its model.',
  settings: 'Its inference settings that differ between the listed iterations.',
  mean_similarity: 'Failure-counting mean similarity over its labeled documents (the ranking figure); null when none finished.',
  aligned_mean_similarity: 'The same over aligned similarities.',
  succeeded_mean_similarity: 'Mean similarity over its labeled succeeded documents only; null when none.',
  coverage: 'succeeded / (succeeded + failed); null when none finished.',
  succeeded: 'Labeled documents whose extraction succeeded.',
  failed: 'Labeled documents whose extraction failed.',
  pending: 'Labeled documents without a prediction yet.',
  unlabeled: 'Documents without ground truth: in no figure.',
  partial: 'True when labeled documents have no outcome yet.',
  cost: 'Summed api cost; null when no price was known.',
  duration_ms: 'finished_at − started_at in milliseconds; null when unknown.',
  created_at: dateTime('When the iteration was created.'),
}), { description: 'One completed iteration on the leaderboard.' });

export const LeaderboardSchema = named('Leaderboard', documented(leaderboardSchema, {
  sort: 'The figure the rows are ordered by.',
  order: '`asc` or `desc`.',
  differing_settings: 'Names of the inference settings that differ between the iterations (the keys of each row\'s `settings`).',
  rows: z.array(LeaderboardRowSchema).meta({ description: 'Completed iterations in the chosen order; rows without the figure last.' }),
}), { description: 'An evaluation\'s completed iterations ranked.' });

export const MatrixIterationSchema = named('MatrixIteration', documented(matrixIterationSchema, {
  id: 'The iteration.',
  name: 'Its name (`PATCH .../metadata`), or null: the column\'s header instead of its id.',
  model: 'Its model.',
  status: 'Its status (`queued`, `running`, `completed`, `failed`, `cancelled`).',
}), { description: 'A column of the matrix: one iteration.' });

export const MatrixRowSchema = named('MatrixRow', documented(matrixRowSchema, {
  document_id: 'The document.',
  filename: 'Its file name.',
  similarities: z.array(z.number().nullable()).meta({
    description: 'Its similarity in each iteration, in the order of `iterations` (current metrics); null where `statuses` says failed or pending.',
  }),
  statuses: z.array(z.enum(['succeeded', 'failed', 'pending'])).meta({
    description: 'Its outcome in each iteration, in the order of `iterations`: `pending` when it has no prediction there.',
  }),
  labeled: 'Whether the document has ground truth; an unlabeled one is in no iteration\'s mean.',
}), { description: 'A row of the matrix: one document.' });

export const MatrixSchema = named('Matrix', documented(matrixSchema, {
  iterations: z.array(MatrixIterationSchema).meta({ description: 'The columns: the evaluation\'s iterations, oldest first.' }),
  data: z.array(MatrixRowSchema).meta({ description: 'One page of documents in the evaluation\'s order.' }),
  list_metadata: ref(ListMetadataSchema, 'The cursors of the pages before and after this one.'),
}), { description: 'One page of an evaluation\'s documents x iterations similarities.' });

export const MatrixQuerySchema = documented(matrixInputSchema.omit({ evaluation_id: true }), {
  limit: 'Documents per page, 1 to 1,000 (100).',
  after: 'A document id: the page starts just after it (`list_metadata.after` of the previous page).',
});

export const CompareQuerySchema = documented(compareInputSchema.omit({ evaluation_id: true }), {
  base: 'The iteration to compare from.',
  head: 'The iteration to compare to.',
  threshold: 'A change of a document\'s similarity smaller than this counts as unchanged, 0 to 1 (0.01).',
});

export const LeaderboardQuerySchema = documented(leaderboardInputSchema.omit({ evaluation_id: true }), {
  sort: '`mean_similarity` (the default), `aligned_mean_similarity`, `cost`, `duration_ms`, `failed` or `created_at`.',
  order: '`asc` or `desc`; by default descending for means, ascending for cost, duration and failures.',
});

export const ExportQuerySchema = documented(exportInputSchema.omit({ evaluation_id: true, iteration_id: true }), {
  format: '`csv` (the default) or `jsonl`.',
  raw: 'CSV only. By default a text cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `\'` so that a spreadsheet cannot run it as a formula (OWASP, CSV injection); `true` writes every cell exactly as stored. JSONL is always raw.',
});

export const ImportAnnotationsBodySchema = named('ImportAnnotationsRequest', documented(importAnnotationsInputSchema.omit({ evaluation_id: true }), {
  format: '`jsonl` (one `{"document_id" | "filename", "annotation"}` per line) or `csv` (a `document_id` or `filename` column and one column per leaf path).',
  content: 'The file\'s text, at most 32 MiB.',
  validate: 'Check each annotation against the evaluation\'s JSON schema (`required` not enforced). Default true.',
  dry_run: 'A preview: every row is checked and answered as the import would answer it, and nothing is written. Default false.',
}), { description: 'An annotations file. The body may also be the file itself, as `text/csv` or `application/x-ndjson` (`?validate=false` to skip checks, `?dry_run=true` for a preview).' });

export const ImportRowResultSchema = named('ImportRowResult', documented(importRowResultSchema, {
  row: 'The line (JSONL) or record after the header (CSV), from 1.',
  document_id: 'The document the row updated or named; null when it named none.',
  filename: 'The file name the row named, if it named one.',
  status: '`updated`, or `refused` (nothing of the row was applied).',
  issues: z.array(z.object({ path: z.string().meta({ description: 'Where, as `row.column`.' }), message: z.string().meta({ description: 'What is wrong.' }) })).meta({ description: 'Why the row was refused.' }),
}), { description: 'What became of one row of an annotations file.' });

export const ImportAnnotationsResultSchema = named('ImportAnnotationsResult', documented(importAnnotationsResultSchema, {
  dry_run: 'True for a preview (`dry_run`): nothing was written, `updated` counts the rows that would be.',
  updated: 'Rows applied (in a preview: that would be applied).',
  refused: 'Rows refused.',
  rows: z.array(ImportRowResultSchema).meta({ description: 'Every row, in the file\'s order.' }),
}), { description: 'The outcome of an annotations import.' });

// Durable jobs (docs/spec/jobs.md)

const [DOCUMENT_EVENT, PROGRESS_EVENT, FINAL_EVENT] = iterationEventSchema.options;
const EVENT_ID = 'The event\'s id: send the last one seen back as `Last-Event-ID` to resume just after it.';

export const DocumentEventSchema = named('DocumentEvent', documented(DOCUMENT_EVENT, {
  id: EVENT_ID,
  type: 'Always `document`: one document finished.',
  data: documented(DOCUMENT_EVENT.shape.data, {
    document_id: 'The document (its `file_id`).',
    similarity: 'Its similarity to the annotation; null when the extraction failed.',
    error: 'Why the extraction failed; null when it succeeded.',
  }).meta({ description: 'Which document, and how it went.' }),
}), { description: 'A document of the run finished.' });

export const ProgressEventSchema = named('ProgressEvent', documented(PROGRESS_EVENT, {
  id: 'The id of the document event it follows.',
  type: 'Always `progress`.',
  data: ref(IterationProgressSchema, 'The iteration\'s documents by outcome now.'),
}), { description: 'Counts after a page of document events.' });

export const FinalEventSchema = named('FinalEvent', documented(FINAL_EVENT, {
  id: EVENT_ID,
  type: '`completed`, `failed` or `cancelled`: the run ended; the stream closes after it.',
  data: ref(IterationSummarySchema, 'The iteration\'s summary at the end: status, progress, usage and means.'),
}), { description: 'The run ended.' });

export const IterationEventSchema = named('IterationEvent', z.union([DocumentEventSchema, ProgressEventSchema, FinalEventSchema]), {
  description: 'One event of an iteration\'s run, sent as an SSE message: `id`, `event` (the type) and `data` (this object as JSON).',
});

// Secrets (docs/secrets.md)

const PROVIDER = 'The provider: `OpenAI`, `Anthropic`, `Gemini` or `xAI` (this spelling).';
const LAST_UPDATED = 'When the organization last set it; null when none is configured.';

export const ExternalApiKeySchema = named('ExternalAPIKey', documented(externalApiKeySchema, {
  provider: PROVIDER,
  is_configured: 'Whether the organization stored a key for it (the key itself is never answered).',
  last_updated: LAST_UPDATED,
}), { description: 'What is known of an organization\'s key for a provider: never the key.' });

export const ExternalApiKeyListSchema = named('ExternalAPIKeyList', z.array(ExternalApiKeySchema), {
  description: 'Every provider, configured or not (a plain array, as the reference SDK reads it).',
});

export const ExternalApiKeyDeletedSchema = named('ExternalAPIKeyDeleted', documented(externalApiKeyDeletedSchema, {
  provider: PROVIDER,
  deleted: 'Whether there was a key to remove.',
  success: 'Always true.',
}), { description: 'A key removal\'s answer.' });

export const CreateExternalApiKeyBodySchema = named('CreateExternalAPIKey', documented(createExternalApiKeyInputSchema, {
  provider: PROVIDER,
  api_key: 'The key, stored encrypted (AES-256-GCM under the server\'s master key) and never answered.',
}), { description: 'A provider key to store for the calling organization.' });

export const ProviderPathSchema = documented(externalApiKeyRefInputSchema, { provider: PROVIDER });

export const CustomEndpointSchema = named('CustomEndpoint', documented(customEndpointSchema, {
  is_configured: 'Whether the organization has one.',
  base_url: 'Its base URL (a user or password in it masked); null when none.',
  models: 'The model names it serves, run as `custom/<name>`.',
  has_api_key: 'Whether a key was stored with it (never answered).',
  last_updated: LAST_UPDATED,
}), { description: 'The organization\'s own OpenAI-compatible endpoint: never its key.' });

export const SetCustomEndpointBodySchema = named('SetCustomEndpoint', documented(setCustomEndpointInputSchema, {
  base_url: 'An http(s) OpenAI-compatible base URL, such as `http://localhost:11434/v1`.',
  api_key: 'Its key, when it needs one: stored encrypted, never answered.',
  models: 'The model names it serves; they run as `custom/<name>`.',
}), { description: 'The organization\'s own OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure).' });

export const CustomEndpointDeletedSchema = named('CustomEndpointDeleted', z.object({
  deleted: z.boolean().meta({ description: 'Whether there was one.' }),
  success: z.literal(true).meta({ description: 'Always true.' }),
}), { description: 'A custom endpoint removal\'s answer.' });
