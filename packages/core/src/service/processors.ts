import { DocevalsError, notFound } from '../errors.js';
import { computeFileId } from '../identifiers/index.js';
import {
  INFERENCE_SETTING_KEYS,
  createProcessorInputSchema,
  inferenceSettingsInputSchema,
  inferenceSettingsSchema,
  listProcessorsInputSchema,
  processorRefInputSchema,
  submitProcessorInputSchema,
  updateProcessorInputSchema,
  type CreateProcessorInput,
  type Deleted,
  type InferenceSettings,
  type ListProcessorsInput,
  type ListResult,
  type Processor,
  type ProcessorRefInput,
  type SubmitProcessorInput,
  type SubmitResult,
  type UpdateProcessorInput,
} from '../schemas/index.js';
import type { ProcessorRecord } from '../storage.js';
import type { JsonObject } from '../json/assert-json.js';
import type { Metadata } from '../schemas/metadata.js';
import { bindContext } from './bind-context.js';
import type { ServiceContext } from './context.js';
import { isIssue, parseDataUrl } from './data-url.js';
import { newProcessorId } from './ids.js';
import { checkJsonSchema } from './json-schemas.js';
import { listMetadata, readPage } from './lists.js';
import { resolveSettings } from './settings.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

function renderProcessor(record: ProcessorRecord): Processor {
  return {
    object: 'processor',
    id: record.id,
    updated_at: record.updated_at,
    name: record.name,
    modality: record.modality,
    image_resolution_dpi: record.image_resolution_dpi,
    browser_canvas: record.browser_canvas,
    model: record.model,
    json_schema: record.json_schema,
    temperature: record.temperature,
    reasoning_effort: record.reasoning_effort,
    n_consensus: record.n_consensus,
    organization_id: record.organization_id,
    schema_data_id: record.schema_data_id,
    schema_id: record.schema_id,
  };
}

/** The record's inference settings and none of its other fields (the schema drops them). */
function settingsOf(record: ProcessorRecord): InferenceSettings {
  return inferenceSettingsSchema.parse(record);
}

export function processorOperations(ctx: ServiceContext) {
  return bindContext(ctx, {
    create: createProcessor,
    get: getProcessor,
    list: listProcessors,
    update: updateProcessor,
    delete: deleteProcessor,
    /** Runs the processor on one document; a failed extraction is a 502 `extractor_error`. Nothing is stored. */
    submit,
  });
}

async function requireProcessor(ctx: ServiceContext, organizationId: string, id: string): Promise<ProcessorRecord> {
  const found = await ctx.storage.processors.get(organizationId, id);
  if (!found) throw notFound('processor', id);
  return found.value;
}

async function createProcessor(ctx: ServiceContext, organizationId: string, raw: CreateProcessorInput): Promise<Processor> {
  const input = parseInput(createProcessorInputSchema, raw);
  const ids = checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes);
  const now = ctx.now();
  const record: ProcessorRecord = {
    id: input.id ?? newProcessorId(),
    organization_id: organizationId,
    name: input.name,
    ...resolveSettings(inferenceSettingsInputSchema.parse(input), undefined, ''),
    json_schema: input.json_schema,
    ...ids,
    created_at: now,
    updated_at: now,
  };
  const stored = await ctx.storage.processors.insert(record);
  return renderProcessor(stored.value);
}

async function getProcessor(ctx: ServiceContext, organizationId: string, raw: ProcessorRefInput): Promise<Processor> {
  const input = parseInput(processorRefInputSchema, raw);
  return renderProcessor(await requireProcessor(ctx, organizationId, input.processor_id));
}

async function listProcessors(ctx: ServiceContext, organizationId: string, raw: ListProcessorsInput = {}): Promise<ListResult<Processor>> {
  const input = parseInput(listProcessorsInputSchema, raw);
  const page = await readPage(ctx.storage.processors, organizationId, input, [
    'name',
    'modality',
    'model',
    'schema_id',
    'schema_data_id',
  ]);
  return { data: page.items.map(renderProcessor), list_metadata: listMetadata(page, input) };
}

async function updateProcessor(ctx: ServiceContext, organizationId: string, raw: UpdateProcessorInput): Promise<Processor> {
  const input = parseInput(updateProcessorInputSchema, raw);
  const ids = input.json_schema
    ? checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes)
    : undefined;
  const changes: Partial<ProcessorRecord> = {};
  for (const key of ['name', ...INFERENCE_SETTING_KEYS] as const) {
    if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
  }
  if (input.json_schema && ids) Object.assign(changes, { json_schema: input.json_schema, ...ids });
  const updated = await updateRecord(ctx.storage.processors, organizationId, input.processor_id, (current) => ({
    write: { ...current, ...changes, updated_at: ctx.now() },
    result: undefined,
  }));
  if (!updated) throw notFound('processor', input.processor_id);
  return renderProcessor(updated.record.value);
}

async function deleteProcessor(ctx: ServiceContext, organizationId: string, raw: ProcessorRefInput): Promise<Deleted> {
  const input = parseInput(processorRefInputSchema, raw);
  if (!(await ctx.storage.processors.delete(organizationId, input.processor_id))) {
    throw notFound('processor', input.processor_id);
  }
  return { id: input.processor_id, deleted: true, success: true };
}

async function submit(ctx: ServiceContext, organizationId: string, raw: SubmitProcessorInput): Promise<SubmitResult> {
  const input = parseInput(submitProcessorInputSchema, raw);
  const file = parseDataUrl(input.document.url, 'document.url');
  if (isIssue(file)) throw invalidRequest([file]);
  const processor = await requireProcessor(ctx, organizationId, input.processor_id);
  const settings = settingsOf(processor);
  ctx.runner.assertServed(settings.model, 'model');
  const credentials = await ctx.secrets.credentialsFor(organizationId, settings.model, 'model');
  const document = {
    id: computeFileId(file.bytes),
    filename: input.document.filename,
    mime_type: file.mime_type,
    bytes: file.bytes,
  };
  const result = await ctx.runner.extractOne(document, processor.json_schema, settings, credentials ? { credentials } : {});
  if (!result) throw new DocevalsError('extractor_error', 'The extractor returned nothing.');
  return chatCompletion(result.prediction, result.metadata, settings.model, ctx.now());
}

/** The submit answer: the prediction and its metadata, as the reference SDK's chat completion too. */
function chatCompletion(prediction: JsonObject, metadata: Metadata | null, model: string, now: string): SubmitResult {
  const usage = (metadata as { usage?: { input_tokens?: number; output_tokens?: number } } | null)?.usage;
  const prompt = usage?.input_tokens ?? 0;
  const completion = usage?.output_tokens ?? 0;
  const extractionId = typeof metadata?.extraction_id === 'string' ? metadata.extraction_id : null;
  return {
    prediction,
    metadata,
    id: extractionId ?? `chatcmpl_${computeFileId(new TextEncoder().encode(now + JSON.stringify(prediction)))}`,
    object: 'chat.completion',
    created: Math.floor(Date.parse(now) / 1000),
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: JSON.stringify(prediction), parsed: prediction, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: usage ? { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } : null,
    likelihoods: metadata?.likelihoods ?? null,
    api_cost: metadata?.api_cost ?? null,
    extraction_id: extractionId,
  };
}
