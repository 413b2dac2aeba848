import {
  apiCostSchema,
  iterationEventSchema,
  documentDeltaSchema,
  evaluationComparisonSchema,
  excludedDocumentSchema,
  fieldDeltaSchema,
  fieldStatsSchema,
  importAnnotationsInputSchema,
  importAnnotationsResultSchema,
  importRowResultSchema,
  iterationFieldsSchema,
  leaderboardRowSchema,
  leaderboardSchema,
  matrixIterationSchema,
  matrixRowSchema,
  matrixSchema,
  meanDeltaSchema,
  documentSummarySchema,
  evaluationSummarySchema,
  evaluationOverviewSchema,
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
  documentDistancesInputSchema,
  documentDistancesSchema,
  documentSchema,
  ERROR_CODES,
  evaluationSchema,
  importedIterationInputSchema,
  inferenceSettingsInputSchema,
  inferenceSettingsSchema,
  itemMetricSchema,
  iterationIdInputSchema,
  iterationSchema,
  listMetadataSchema,
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
  processorSchema,
  submitProcessorInputSchema,
  submitResultSchema,
  externalApiKeySchema,
  externalApiKeyDeletedSchema,
  createExternalApiKeyInputSchema,
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

/**
 * `schema` with some properties described again or replaced (a named component, a nullable `$ref`, a date-time
 * format). Every other property keeps the core's description (`described()` next to the type); a test
 * (openapi-readable) fails on any property of a component left without one.
 */
export function documented<T extends z.ZodObject>(
  schema: T,
  fields: { [K in keyof T['shape']]?: PropertyDoc },
): T {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, doc] of Object.entries(fields) as Array<[string, PropertyDoc]>) {
    if (!(key in schema.shape)) throw new Error(`documented: "${key}" is not a property of the schema.`);
    shape[key] = typeof doc === 'string' ? (schema.shape[key] as z.ZodType).meta({ description: doc }) : doc;
  }
  // safeExtend types the result with the replaced shape; the replacements describe the same values (a description,
  // a `$ref` to the same schema), so the result stands for T, which its callers pass on as the core's type.
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
function named<T extends z.ZodType>(name: string, schema: T, meta?: { description: string; examples?: unknown[] }): T {
  const core = RESTATED.get(schema);
  const { description, examples } = meta ?? (core && z.globalRegistry.get(core)) ?? {};
  if (!description) throw new Error(`named: "${name}" has no description (the core schema's .meta({ description })).`);
  const result = schema.openapi(name, { description, ...(Array.isArray(examples) ? { examples } : {}) }) as T;
  NAMED_SCHEMAS.push([name, result]);
  if (core && !NAMED_BY_CORE.has(core)) NAMED_BY_CORE.set(core, result);
  return result;
}

/** A named schema with a description (and a default) of its own where it is used. */
const ref = (schema: z.ZodType, description: string, defaultValue?: unknown) =>
  schema.meta({ description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

const dateTime = (description: string) => z.string().meta({ format: 'date-time', description, examples: ['2026-11-23T19:23:59.958Z'] });
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

named('Error', z
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

export const ApiCostSchema = named('ApiCost', documented(apiCostSchema, {}));

export const PredictionMetadataSchema = named('PredictionMetadata', documented(metadataSchema, {
  api_cost: orNull(ApiCostSchema, 'What the extraction cost, or null when unknown.').optional(),
}));

/** A setting of a request with the core's description (and `more`) and the default it takes when left out. */
const settingWithDefault = (key: keyof typeof DEFAULT_INFERENCE_SETTINGS, more = '') =>
  inferenceSettingsInputSchema.shape[key].meta({
    description: `${z.globalRegistry.get(inferenceSettingsSchema.shape[key])?.description ?? ''}${more}`,
    default: DEFAULT_INFERENCE_SETTINGS[key],
  });

export const InferenceSettingsInputSchema = named('InferenceSettingsInput', documented(inferenceSettingsInputSchema, {
  model: 'The model to run, as served by one of the host\'s extractors. No default: required unless the evaluation\'s defaults name one.',
  temperature: settingWithDefault('temperature'),
  modality: settingWithDefault('modality'),
  reasoning_effort: settingWithDefault('reasoning_effort'),
  image_resolution_dpi: settingWithDefault('image_resolution_dpi', ' 36 to 600.'),
  browser_canvas: settingWithDefault('browser_canvas'),
  n_consensus: settingWithDefault('n_consensus', ' 1 to 16.'),
}));

export const InferenceSettingsSchema = named('InferenceSettings', documented(inferenceSettingsSchema, {}));

export const DefaultInferenceSettingsSchema = named('DefaultInferenceSettings', documented(defaultInferenceSettingsSchema, {
  model: 'The default model; absent when the evaluation names none (each iteration must then name one).',
}));

export const ListMetadataSchema = named('ListMetadata', documented(listMetadataSchema, {}));

named('Deleted', documented(deletedSchema, {}));

// Documents

const responseMimeData = named('MimeData', documented(documentSchema.shape.mime_data, {}), { description: 'A file: its name and its content.' });

export const EvaluationDocumentSchema = named('EvaluationDocument', documented(documentSchema, {
  mime_data: ref(responseMimeData, 'The file.'),
  annotation_metadata: orNull(PredictionMetadataSchema, 'Metadata of the annotation, or null.'),
}));

const inputMimeData = named('MimeDataInput', documented(documentInputSchema.shape.mime_data, {}), { description: 'A file: its name, and either its content (`url`) or a stored file (`file_id`).' });

export const DocumentInputSchema = named('DocumentInput', documented(documentInputSchema, {
  mime_data: ref(inputMimeData, 'The file: its content, or a stored one.'),
  annotation_metadata: orNull(PredictionMetadataSchema, 'Metadata of the annotation.').optional(),
}));
const SCHEMA_ISSUES = z
  .array(
    z.object({
      path: z.string().meta({ description: 'Where in the prediction: a dotted path (`items.0.price`), `""` for the whole.' }),
      message: z.string().meta({ description: 'What the schema says is wrong there.' }),
    }),
  )
  .optional()
  .meta({ description: 'When `schema_valid` is false: the first issues (at most 5).' });

export const OutcomeCountsSchema = named('OutcomeCounts', documented(outcomeCountsSchema, {}));

const HONEST_FIGURES = { counts: ref(OutcomeCountsSchema, 'Documents by outcome.') };

export const PredictionSchema = named('Prediction', documented(predictionSchema, {
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made; null for a document that has not run yet.'),
  schema_issues: SCHEMA_ISSUES,
}));
export const ItemMetricSchema = named('ItemMetric', documented(itemMetricSchema, {}));

export const MetricResultsSchema = named('MetricResults', documented(metricResultsSchema, {
  item_metrics: z.array(ItemMetricSchema).meta({ description: 'One per document of the evaluation, in document order.' }),
  ...HONEST_FIGURES,
}));

export const IterationProgressSchema = named('IterationProgress', documented(iterationSummarySchema.shape.progress, {}), { description: 'An iteration\'s documents by outcome.' });

export const IterationUsageSchema = named('IterationUsage', documented(iterationSummarySchema.shape.usage, {}), { description: 'What an iteration consumed.' });

export const IterationSchema = named('Iteration', documented(iterationSchema, {
  updated_at: dateTime('When the iteration last changed (ISO 8601, UTC).'),
  inference_settings: ref(InferenceSettingsSchema, 'The settings it ran with: its request\'s over the evaluation\'s defaults over the service\'s.'),
  predictions: z.array(PredictionSchema).meta({ description: 'One per document of the evaluation, in document order.' }),
  metric_results: ref(MetricResultsSchema, 'Its predictions scored against the annotations.'),
  progress: ref(IterationProgressSchema, 'Its documents by outcome.'),
  started_at: orNull(dateTime('When the last run started.'), 'When the last run started; null before it did.'),
  finished_at: orNull(dateTime('When the last run finished.'), 'When the last run finished; null while it runs.'),
  usage: ref(IterationUsageSchema, 'Tokens and cost so far.'),
}));


export const IterationSummarySchema = named('IterationSummary', documented(iterationSummarySchema, {
  updated_at: dateTime('When the iteration last changed (ISO 8601, UTC).'),
  created_at: dateTime('When the iteration was created (ISO 8601, UTC).'),
  inference_settings: ref(InferenceSettingsSchema, 'The settings it runs with.'),
  started_at: orNull(dateTime('When the last run started.'), 'When the last run started; null before it did.'),
  finished_at: orNull(dateTime('When the last run finished.'), 'When the last run finished; null while it runs.'),
  progress: ref(IterationProgressSchema, 'Its documents by outcome.'),
  usage: ref(IterationUsageSchema, 'Tokens and cost so far.'),
  metric_results: documented(iterationSummarySchema.shape.metric_results, HONEST_FIGURES).meta({
    description: 'The figures, read from running totals.',
  }),
}));

export const PredictionWithMetricsSchema = named('PredictionWithMetrics', documented(predictionWithMetricsSchema, {
  document_id: 'The document the prediction belongs to (its `file_id`).',
  prediction: 'The extracted data (`{}` while pending or after a failure).',
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made; null while pending.'),
  schema_issues: SCHEMA_ISSUES,
  metrics: ref(ItemMetricSchema, 'The prediction scored against the document\'s current annotation.'),
}));

export const IterationViewSchema = named('IterationView', z.union([IterationSchema, IterationSummarySchema]), {
  description: 'An iteration: whole (the default), or its summary with `view=summary`.',
});

// Evaluations

export const EvaluationSchema = named('Evaluation', documented(evaluationSchema, {
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  documents: z.array(EvaluationDocumentSchema).meta({ description: 'The documents with their annotations, in order.' }),
  iterations: z.array(IterationSchema).meta({ description: 'Every iteration, oldest first.' }),
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from; a request\'s settings go over them.'),
}));
export const DocumentSummarySchema = named('DocumentSummary', documented(documentSummarySchema, {
  mime_data: ref(named('MimeDataLink', documented(documentSummarySchema.shape.mime_data, {
  }), { description: 'A file: its name and where to read its content.' }), 'The interface\'s `{filename, url}`, the url a path to the content.'),
}));

export const EvaluationSummarySchema = named('EvaluationSummary', documented(evaluationSummarySchema, {
  id: 'The evaluation\'s id.',
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  project_id: 'A free grouping key (`""` when none).',
  documents: z.array(z.union([DocumentSummarySchema, EvaluationDocumentSchema])).meta({ description: 'Summaries, or whole documents with `expand=documents`.' }),
  iterations: z.array(IterationSummarySchema).meta({ description: 'Every iteration as a summary, oldest first.' }),
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from.'),
}));

export const EvaluationOverviewSchema = named('EvaluationOverview', documented(evaluationOverviewSchema, {
  id: 'The evaluation\'s id.',
  updated_at: dateTime('When the evaluation last changed (ISO 8601, UTC).'),
  project_id: 'A free grouping key (`""` when none).',
  iterations: z.array(IterationSummarySchema).meta({ description: 'Every iteration as a summary, oldest first.' }),
  default_inference_settings: ref(DefaultInferenceSettingsSchema, 'Settings every iteration starts from.'),
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
  updated_at: dateTime('When the processor last changed (ISO 8601, UTC).'),
}));

// The plain fields are described in the core (described()); here only what names a component or wraps a union.
named('SubmitResult', documented(submitResultSchema, {
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made.'),
  choices: z.array(documented(submitResultSchema.shape.choices.element, {
    message: documented(submitResultSchema.shape.choices.element.shape.message, {}).meta({ description: 'The prediction, parsed and as text.' }),
  })).meta({ description: 'One choice whose `message.parsed` is the prediction.' }),
  usage: z.union([documented(submitResultSchema.shape.usage.unwrap(), {}), z.null()]).meta({
    description: 'Tokens of the extraction (summed over consensus runs); null when the extractor reports none.',
  }),
  api_cost: orNull(ApiCostSchema, 'The cost; null when the model\'s price is unknown.'),
}));

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
const DOCUMENT_ID = 'The document\'s id: its `file_id` (`file_...`), as in the document\'s `id`.';
export const IterationIdPathSchema = documented(iterationIdInputSchema, {});
export const DistancesPathSchema = documented(iterationIdInputSchema.extend({ document_id: documentDistancesInputSchema.shape.document_id }), {
  iteration_id: IterationIdPathSchema.shape.iteration_id,
  document_id: DOCUMENT_ID,
});

export const ListPredictionsQuerySchema = documented(listPredictionsInputSchema.omit({ evaluation_id: true, iteration_id: true }), {
  document_ids: listPredictionsInputSchema.shape.document_ids.meta({
    description:
      'Only these documents (1 to 10,000 ids, comma-separated: `document_ids=file_a,file_b`; repeating the parameter ' +
      'works too), in this order, each once; `limit` and `after` page through them. Each is read by its id, not ' +
      'found by paging. An id that is not a document of the evaluation is a 422 naming it (`document_ids.<index>`). ' +
      "The URL's length is bounded by the host (Node: 16 KiB of request line and headers, about 700 ids).",
    param: { style: 'form', explode: false },
  }),
});
// Request bodies

const ImportedPredictionSchema = named('ImportedPrediction', documented(importedIterationInputSchema.shape.predictions.unwrap().element, {
  metadata: orNull(PredictionMetadataSchema, 'How the prediction was made.').optional(),
}), { description: 'A prediction imported as it is.' });

export const ImportedIterationSchema = named('ImportedIteration', documented(importedIterationInputSchema, {
  inference_settings: ref(InferenceSettingsInputSchema, 'The settings it ran with.', {}).optional(),
  predictions: z.array(ImportedPredictionSchema).default([]).meta({ description: 'One per document; their metrics are computed.' }),
}));

export const CreateEvaluationBodySchema = named('CreateEvaluationRequest', documented(createEvaluationInputSchema, {
  documents: z.array(DocumentInputSchema).default([]).meta({ description: 'The documents with their annotations (at most 10,000). Their files are stored once.' }),
  iterations: z.array(ImportedIterationSchema).default([]).meta({ description: 'Iterations to import as they are.' }),
  default_inference_settings: ref(InferenceSettingsInputSchema, 'Settings every iteration starts from.', {}).optional(),
}));

export const UpdateEvaluationBodySchema = named('UpdateEvaluationRequest', documented(updateEvaluationInputSchema.omit({ evaluation_id: true }), {
  default_inference_settings: ref(InferenceSettingsInputSchema, 'New default settings (they replace the old ones).').optional(),
}), { description: 'The fields to change; omitted fields stay as they are.' });

export const AddDocumentBodySchema = DocumentInputSchema;

export const UpdateDocumentBodySchema = named('UpdateDocumentRequest', documented(updateDocumentInputSchema.omit({ evaluation_id: true, document_id: true }), {
  annotation_metadata: orNull(PredictionMetadataSchema, 'New metadata of the annotation; left out, it stays.').optional(),
}), { description: 'A document\'s new annotation.' });

export const CreateIterationBodySchema = named('CreateIterationRequest', documented(createIterationInputSchema.omit({ evaluation_id: true }), {
  inference_settings: ref(InferenceSettingsInputSchema, 'The settings to run with, over the evaluation\'s defaults.', {}).optional(),
}), { description: 'The settings of a new iteration.' });

export const ProcessIterationBodySchema = named('ProcessIterationRequest', documented(processIterationInputSchema.omit({ evaluation_id: true, iteration_id: true }), {}), { description: 'Which documents of the iteration to re-run; an empty body re-runs them all.' });

/** A new processor's settings, with the defaults they take. */
const PROCESSOR_SETTINGS = {
  modality: InferenceSettingsInputSchema.shape.modality,
  image_resolution_dpi: InferenceSettingsInputSchema.shape.image_resolution_dpi,
  browser_canvas: InferenceSettingsInputSchema.shape.browser_canvas,
  temperature: InferenceSettingsInputSchema.shape.temperature,
  reasoning_effort: InferenceSettingsInputSchema.shape.reasoning_effort,
  n_consensus: InferenceSettingsInputSchema.shape.n_consensus,
};

export const CreateProcessorBodySchema = named('CreateProcessorRequest', documented(createProcessorInputSchema, {
  ...PROCESSOR_SETTINGS,
  model: createProcessorInputSchema.shape.model.meta({ description: 'The model to run, as served by one of the host\'s extractors.' }),
}));

export const UpdateProcessorBodySchema = named('UpdateProcessorRequest', documented(updateProcessorInputSchema.omit({ processor_id: true }), {
  model: InferenceSettingsInputSchema.shape.model,
}), { description: 'The fields to change; omitted fields stay as they are.' });

export const SubmitDocumentBodySchema = named('SubmitDocumentRequest', documented(submitProcessorInputSchema.omit({ processor_id: true }), {
  document: ref(named('SubmittedDocument', documented(submitProcessorInputSchema.shape.document, {
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
  }),
  {
    description:
      'What to change in an iteration. When the settings or the schema change, every document is extracted again; ' +
      'other fields (a whole Iteration, as the reference SDK sends it) are ignored.',
  },
);

named(
  'DocumentDistances',
  documented(documentDistancesSchema, {
  }),
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

export const ModelSchema = named('Model', documented(modelSchema, {}));

named('ModelList', documented(modelListSchema, {
  data: z.array(ModelSchema).meta({ description: 'Every entry, in routing order: the first extractor that serves a name wins.' }),
}));
export const AnalysisCountsSchema = named('AnalysisCounts', documented(analysisCountsSchema, {}));

export const CalibrationBinSchema = named('CalibrationBin', documented(calibrationBinSchema, {}));

export const CalibrationSchema = named('Calibration', documented(calibrationSchema, {
  bins: z.array(CalibrationBinSchema).meta({ description: 'Ten bins of 0.1, lowest first.' }),
}));

export const PairedDeltaSchema = named('PairedDelta', documented(pairedDeltaSchema, {}));

export const FieldStatsSchema = named('FieldStats', documented(fieldStatsSchema, {
  calibration: orNull(CalibrationSchema, 'The field\'s reliability table; null when no prediction carried likelihoods for it.'),
}));

named('IterationFields', documented(iterationFieldsSchema, {
  fields: z.array(FieldStatsSchema).meta({ description: 'Every field, worst first (by mean similarity; fields nobody scored last).' }),
  counts: ref(AnalysisCountsSchema, 'Documents by outcome.'),
  calibration: orNull(CalibrationSchema, 'Every scored leaf with a likelihood, all fields together; null without likelihoods.'),
}));

export const FieldDeltaSchema = named('FieldDelta', documented(fieldDeltaSchema, {
  paired: orNull(PairedDeltaSchema, 'The paired delta over the compared documents that scored the field on both sides, with its interval; null when none did.'),
}));

export const DocumentDeltaSchema = named('DocumentDelta', documented(documentDeltaSchema, {}));

export const ExcludedDocumentSchema = named('ExcludedDocument', documented(excludedDocumentSchema, {}));

export const MeanDeltaSchema = named('MeanDelta', documented(meanDeltaSchema, {
  paired: orNull(PairedDeltaSchema, 'For the means: the paired delta over the compared documents with its interval; null without documents.').optional(),
}));

named('IterationComparison', documented(evaluationComparisonSchema, {
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
}));

export const LeaderboardRowSchema = named('LeaderboardRow', documented(leaderboardRowSchema, {
  created_at: dateTime('When the iteration was created.'),
}));

named('Leaderboard', documented(leaderboardSchema, {
  rows: z.array(LeaderboardRowSchema).meta({ description: 'Completed iterations in the chosen order; rows without the figure last.' }),
}));

export const MatrixIterationSchema = named('MatrixIteration', documented(matrixIterationSchema, {}));

export const MatrixRowSchema = named('MatrixRow', documented(matrixRowSchema, {
  similarities: z.array(z.number().nullable()).meta({
    description: 'Its similarity in each iteration, in the order of `iterations` (current metrics); null where `statuses` says failed or pending.',
  }),
  statuses: z.array(z.enum(['succeeded', 'failed', 'pending'])).meta({
    description: 'Its outcome in each iteration, in the order of `iterations`: `pending` when it has no prediction there.',
  }),
}));

named('Matrix', documented(matrixSchema, {
  iterations: z.array(MatrixIterationSchema).meta({ description: 'The columns: the evaluation\'s iterations, oldest first.' }),
  data: z.array(MatrixRowSchema).meta({ description: 'One page of documents in the evaluation\'s order.' }),
  list_metadata: ref(ListMetadataSchema, 'The cursors of the pages before and after this one.'),
}));

export const ImportAnnotationsBodySchema = named('ImportAnnotationsRequest', documented(importAnnotationsInputSchema.omit({ evaluation_id: true }), {}), { description: 'An annotations file. The body may also be the file itself, as `text/csv` or `application/x-ndjson` (`?validate=false` to skip checks, `?dry_run=true` for a preview).' });

export const ImportRowResultSchema = named('ImportRowResult', documented(importRowResultSchema, {
  issues: z.array(z.object({ path: z.string().meta({ description: 'Where, as `row.column`.' }), message: z.string().meta({ description: 'What is wrong.' }) })).meta({ description: 'Why the row was refused.' }),
}));

named('ImportAnnotationsResult', documented(importAnnotationsResultSchema, {
  rows: z.array(ImportRowResultSchema).meta({ description: 'Every row, in the file\'s order.' }),
}));

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
export const ExternalApiKeySchema = named('ExternalAPIKey', documented(externalApiKeySchema, {}));

export const ExternalApiKeyListSchema = named('ExternalAPIKeyList', z.array(ExternalApiKeySchema), {
  description: 'Every provider, configured or not (a plain array, as the reference SDK reads it).',
});

named('ExternalAPIKeyDeleted', documented(externalApiKeyDeletedSchema, {}));

export const CreateExternalApiKeyBodySchema = named('CreateExternalAPIKey', documented(createExternalApiKeyInputSchema, {}));
named('CustomEndpoint', documented(customEndpointSchema, {}));

export const SetCustomEndpointBodySchema = named('SetCustomEndpoint', documented(setCustomEndpointInputSchema, {}));

export const CustomEndpointDeletedSchema = named('CustomEndpointDeleted', z.object({
  deleted: z.boolean().meta({ description: 'Whether there was one.' }),
  success: z.literal(true).meta({ description: 'Always true.' }),
}), { description: 'A custom endpoint removal\'s answer.' });
