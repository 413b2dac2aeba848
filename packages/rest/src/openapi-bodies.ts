import {
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
  createEvaluationInputSchema,
  createIterationInputSchema,
  createProcessorInputSchema,
  documentDistancesSchema,
  importedIterationInputSchema,
  analysisCountsSchema,
  calibrationSchema,
  calibrationBinSchema,
  pairedDeltaSchema,
  modelListSchema,
  modelSchema,
  processIterationInputSchema,
  submitProcessorInputSchema,
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
import { dateTime, documented, named, orNull, ref } from './openapi-named.js';
import {
  DocumentInputSchema,
  InferenceSettingsInputSchema,
  IterationProgressSchema,
  IterationSummarySchema,
  ListMetadataSchema,
  PredictionMetadataSchema,
} from './openapi-schemas.js';

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
