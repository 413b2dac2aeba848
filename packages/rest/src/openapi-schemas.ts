import {
  apiCostSchema,
  documentSummarySchema,
  evaluationSummarySchema,
  evaluationOverviewSchema,
  iterationSummarySchema,
  listPredictionsInputSchema,
  predictionWithMetricsSchema,
  DEFAULT_INFERENCE_SETTINGS,
  defaultInferenceSettingsSchema,
  deletedSchema,
  documentInputSchema,
  documentDistancesInputSchema,
  documentSchema,
  ERROR_CODES,
  evaluationSchema,
  inferenceSettingsInputSchema,
  inferenceSettingsSchema,
  itemMetricSchema,
  iterationIdInputSchema,
  iterationSchema,
  listMetadataSchema,
  metadataSchema,
  metricResultsSchema,
  outcomeCountsSchema,
  predictionSchema,
  processorSchema,
  submitResultSchema,
} from '@docevals/core';
import { z } from '@hono/zod-openapi';
import { dateTime, documented, named, orNull, ref } from './openapi-named.js';

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
