import { z } from 'zod';
import * as schemas from '../schemas/index.js';
import { operation } from './define.js';

/** Processors (stored extraction settings) and the models the host serves. */
export const processorOperations = {
  'processors.create': operation({
    procedure: 'mutation',
    input: schemas.createProcessorInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.create(org, input),
    rest: {
      method: 'post',
      path: '/v1/processors',
      operationId: 'createProcessor',
      tag: 'Processors',
      summary: 'Create a processor',
      description: 'Stores a named extraction configuration: a model, a JSON schema and inference settings.',
      input: 'body',
    },
  }),
  'processors.get': operation({
    procedure: 'query',
    input: schemas.processorRefInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.get(org, input),
    rest: {
      method: 'get',
      path: '/v1/processors/{processor_id}',
      operationId: 'getProcessor',
      tag: 'Processors',
      summary: 'Get a processor',
      description: 'A processor\'s settings.',
    },
  }),
  'processors.list': operation({
    procedure: 'query',
    input: schemas.listProcessorsInputSchema.optional(),
    output: schemas.listResultSchema(schemas.processorSchema),
    call: (d, org, input) => d.processors.list(org, input),
    rest: {
      method: 'get',
      path: '/v1/processors',
      operationId: 'listProcessors',
      tag: 'Processors',
      summary: 'List processors (cursor pagination)',
      description: 'Lists the organization\'s processors, newest first by default, a page at a time. Filters match exactly.',
      input: 'query',
    },
  }),
  'processors.update': operation({
    procedure: 'mutation',
    input: schemas.updateProcessorInputSchema,
    output: schemas.processorSchema,
    call: (d, org, input) => d.processors.update(org, input),
    rest: {
      method: 'put',
      path: '/v1/processors/{processor_id}',
      operationId: 'updateProcessor',
      tag: 'Processors',
      summary: 'Update a processor (changes the fields it carries, keeps the others)',
      description: 'Changes the fields the body carries and keeps the others.',
      input: 'body',
    },
  }),
  'processors.delete': operation({
    procedure: 'mutation',
    input: schemas.processorRefInputSchema,
    output: schemas.deletedSchema,
    call: (d, org, input) => d.processors.delete(org, input),
    rest: {
      method: 'delete',
      path: '/v1/processors/{processor_id}',
      operationId: 'deleteProcessor',
      tag: 'Processors',
      summary: 'Delete a processor',
      description: 'Deletes a processor.',
    },
  }),
  'processors.submit': operation({
    procedure: 'mutation',
    input: schemas.submitProcessorInputSchema,
    output: schemas.submitResultSchema,
    call: (d, org, input) => d.processors.submit(org, input),
    rest: {
      method: 'post',
      path: '/v1/processors/{processor_id}/submit',
      operationId: 'submitToProcessor',
      tag: 'Processors',
      summary: 'Run a processor\'s extraction on one document',
      description:
        'Runs the processor\'s extraction on one document and answers the prediction with its metadata, and the ' +
        'same as the reference SDK\'s chat completion (`choices[0].message.parsed`, `usage`, `likelihoods`, ' +
        '`api_cost`). The model runs with the calling organization\'s provider key (or the host\'s). Nothing is stored. A failed extraction is a 502 `extractor_error`. The body is JSON, or ' +
        '`multipart/form-data` with the file as a `document` part (the reference SDK\'s form; its other ' +
        'fields, such as `temperature`, `seed` or `store`, are accepted and not used: the processor\'s stored ' +
        'settings apply). Both have the same size limit.',
      input: 'body',
      acceptsForm: true,
    },
  }),
  'models.list': operation({
    procedure: 'query',
    input: z.void(),
    output: schemas.modelListSchema,
    call: (d, org) => d.listModels(org),
    rest: {
      method: 'get',
      path: '/v1/models',
      operationId: 'listModels',
      tag: 'Models',
      summary: 'The models the calling organization can run now, with their provider and modalities',
      description:
        'The models the calling organization can run now, in routing order, with the modalities each reads and ' +
        'the `provider` serving it: the host\'s models that need no key, each provider\'s (`OpenAI`, `Anthropic`, ' +
        '`Gemini`, `xAI`) current models and name patterns when the organization stored a key for it or the host ' +
        'has one, and its custom endpoint\'s models as `custom/<name>`. A name matched by a pattern (`gpt-*`) is ' +
        'served too; an iteration or processor naming a model nobody serves is a 422, and one whose provider has ' +
        'no key is a 422 naming the provider.',
    },
  }),
} as const;
