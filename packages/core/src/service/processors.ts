import { DocevalsError, notFound } from '../errors.js';
import { computeFileId } from '../identifiers/index.js';
import {
  DEFAULT_INFERENCE_SETTINGS,
  createProcessorInputSchema,
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
import type { ServiceContext } from './context.js';
import { isIssue, parseDataUrl } from './data-url.js';
import { newProcessorId } from './ids.js';
import { checkJsonSchema } from './json-schemas.js';
import { listMetadata, readPage } from './lists.js';
import { updateRecord } from './update-record.js';
import { invalidRequest, parseInput } from './validate.js';

const SETTING_KEYS = [
  'model',
  'modality',
  'image_resolution_dpi',
  'browser_canvas',
  'temperature',
  'reasoning_effort',
  'n_consensus',
] as const;

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

function settingsOf(record: ProcessorRecord): InferenceSettings {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, record[k]])) as unknown as InferenceSettings;
}

export function processorOperations(ctx: ServiceContext) {
  async function requireProcessor(organizationId: string, id: string) {
    const found = await ctx.storage.processors.get(organizationId, id);
    if (!found) throw notFound('processor', id);
    return found.value;
  }

  return {
    async create(organizationId: string, raw: CreateProcessorInput): Promise<Processor> {
      const input = parseInput(createProcessorInputSchema, raw);
      const ids = checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes);
      const now = ctx.now();
      const record: ProcessorRecord = {
        id: input.id ?? newProcessorId(),
        organization_id: organizationId,
        name: input.name,
        model: input.model,
        modality: input.modality ?? DEFAULT_INFERENCE_SETTINGS.modality,
        image_resolution_dpi: input.image_resolution_dpi ?? DEFAULT_INFERENCE_SETTINGS.image_resolution_dpi,
        browser_canvas: input.browser_canvas ?? DEFAULT_INFERENCE_SETTINGS.browser_canvas,
        temperature: input.temperature ?? DEFAULT_INFERENCE_SETTINGS.temperature,
        reasoning_effort:
          input.reasoning_effort !== undefined ? input.reasoning_effort : DEFAULT_INFERENCE_SETTINGS.reasoning_effort,
        n_consensus: input.n_consensus ?? DEFAULT_INFERENCE_SETTINGS.n_consensus,
        json_schema: input.json_schema,
        ...ids,
        created_at: now,
        updated_at: now,
      };
      const stored = await ctx.storage.processors.insert(record);
      return renderProcessor(stored.value);
    },

    async get(organizationId: string, raw: ProcessorRefInput): Promise<Processor> {
      const input = parseInput(processorRefInputSchema, raw);
      return renderProcessor(await requireProcessor(organizationId, input.processor_id));
    },

    async list(organizationId: string, raw: ListProcessorsInput = {}): Promise<ListResult<Processor>> {
      const input = parseInput(listProcessorsInputSchema, raw);
      const page = await readPage(ctx.storage.processors, organizationId, input, [
        'name',
        'modality',
        'model',
        'schema_id',
        'schema_data_id',
      ]);
      return { data: page.items.map(renderProcessor), list_metadata: listMetadata(page, input) };
    },

    async update(organizationId: string, raw: UpdateProcessorInput): Promise<Processor> {
      const input = parseInput(updateProcessorInputSchema, raw);
      const ids = input.json_schema
        ? checkJsonSchema(input.json_schema, 'json_schema', ctx.limits.maxJsonSchemaBytes)
        : undefined;
      const changes: Partial<ProcessorRecord> = {};
      for (const key of ['name', ...SETTING_KEYS] as const) {
        if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
      }
      if (input.json_schema && ids) Object.assign(changes, { json_schema: input.json_schema, ...ids });
      const updated = await updateRecord(ctx.storage.processors, organizationId, input.processor_id, (current) => ({
        write: { ...current, ...changes, updated_at: ctx.now() },
        result: undefined,
      }));
      if (!updated) throw notFound('processor', input.processor_id);
      return renderProcessor(updated.record.value);
    },

    async delete(organizationId: string, raw: ProcessorRefInput): Promise<Deleted> {
      const input = parseInput(processorRefInputSchema, raw);
      if (!(await ctx.storage.processors.delete(organizationId, input.processor_id))) {
        throw notFound('processor', input.processor_id);
      }
      return { id: input.processor_id, deleted: true, success: true };
    },

    /** Runs the processor on one document; a failed extraction is a 502 `extractor_error`. Nothing is stored. */
    async submit(organizationId: string, raw: SubmitProcessorInput): Promise<SubmitResult> {
      const input = parseInput(submitProcessorInputSchema, raw);
      const file = parseDataUrl(input.document.url, 'document.url');
      if (isIssue(file)) throw invalidRequest([file]);
      const processor = await requireProcessor(organizationId, input.processor_id);
      const settings = settingsOf(processor);
      ctx.runner.assertServed(settings.model, 'model');
      const document = {
        id: computeFileId(file.bytes),
        filename: input.document.filename,
        mime_type: file.mime_type,
        bytes: file.bytes,
      };
      const result = await ctx.runner.extractOne(document, processor.json_schema, settings);
      if (!result) throw new DocevalsError('extractor_error', 'The extractor returned nothing.');
      return { prediction: result.prediction, metadata: result.metadata };
    },
  };
}
