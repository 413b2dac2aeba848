import {
  createDocevals,
  isDocevalsError,
  type CreateEvaluationInput,
  type CustomEndpoint,
  type Docevals,
  type DocumentInput,
  type DocumentSummary,
  type EvaluationComparison,
  type EvaluationOverview,
  type EvaluationSummary,
  type ExternalApiKey,
  type ImportAnnotationsResult,
  type InferenceSettingsInput,
  type IterationEvent,
  type IterationFields,
  type IterationSummary,
  type Leaderboard,
  type Matrix,
  type SetCustomEndpointInput,
} from '@docevals/core';
import type { Provider } from '@docevals/core/internal';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { CliError, EXIT, exitCodeOfApiError } from './errors.js';
import { asSummary, type SendInit, sendRequest, sseEvents, textChunks } from './http-transport.js';

/** An evaluation as the commands need it. */
export type EvaluationInfo = Pick<EvaluationSummary, 'id' | 'name' | 'json_schema' | 'document_count'>;

/**
 * What the commands need from docevals: one small interface, served over HTTP (a server) or in-process (a lowdb
 * folder). Each method is one service operation; nothing here holds a business rule.
 */
export interface DocevalsClient {
  /** `http://127.0.0.1:3000` or `lowdb ./data`: said in messages. */
  readonly target: string;
  /** The local store's folder (in-process client only): an import never reads it as documents. */
  readonly dataDir?: string;
  listEvaluations(filter?: { name?: string }): Promise<EvaluationInfo[]>;
  getEvaluation(id: string): Promise<EvaluationInfo>;
  createEvaluation(input: CreateEvaluationInput): Promise<EvaluationInfo>;
  listDocuments(evaluationId: string): Promise<DocumentSummary[]>;
  addDocument(evaluationId: string, document: DocumentInput): Promise<{ id: string }>;
  importAnnotations(evaluationId: string, format: 'jsonl' | 'csv', content: string): Promise<ImportAnnotationsResult>;
  listIterations(evaluationId: string): Promise<IterationSummary[]>;
  getIteration(evaluationId: string, iterationId: string): Promise<IterationSummary>;
  /** `background: true` when the server runs it as a job (202); false when it answered once done (an older server). */
  createIteration(evaluationId: string, settings: InferenceSettingsInput): Promise<{ iteration: IterationSummary; background: boolean }>;
  events(evaluationId: string, iterationId: string, signal: AbortSignal): AsyncIterable<IterationEvent>;
  cancelIteration(evaluationId: string, iterationId: string): Promise<IterationSummary>;
  compare(evaluationId: string, base: string, head: string, threshold?: number): Promise<EvaluationComparison>;
  leaderboard(evaluationId: string): Promise<Leaderboard>;
  fields(evaluationId: string, iterationId: string): Promise<IterationFields>;
  /** One page of the documents × iterations matrix (statuses, similarities, labeled), after a document id. */
  matrix(evaluationId: string, after?: string): Promise<Matrix>;
  exportIteration(evaluationId: string, iterationId: string, format: 'csv' | 'jsonl'): Promise<AsyncIterable<string>>;
  models(): Promise<string[]>;
  /** The organization's provider keys (configured or not, never a key) and its custom endpoint. */
  listSecrets(): Promise<{ keys: ExternalApiKey[]; custom_endpoint: CustomEndpoint }>;
  /** Stores (or replaces) the organization's key for a provider. */
  setProviderKey(provider: Provider, apiKey: string): Promise<ExternalApiKey>;
  /** Stores (or replaces) the organization's custom OpenAI-compatible endpoint. */
  setCustomEndpoint(input: SetCustomEndpointInput): Promise<CustomEndpoint>;
  /** Removes a provider's key, or the custom endpoint; `deleted` is false when there was none. */
  removeSecret(name: Provider | 'custom'): Promise<{ deleted: boolean }>;
  close(): Promise<void>;
}

const info = (e: Pick<EvaluationSummary | EvaluationOverview, 'id' | 'name' | 'json_schema' | 'document_count'>): EvaluationInfo => ({
  id: e.id,
  name: e.name,
  json_schema: e.json_schema,
  document_count: e.document_count,
});

/** Every page of a cursor-paginated list (`order=asc`, `after` the last id). */
async function allPages<T extends { id: string }>(page: (after: string | undefined) => Promise<{ data: T[]; list_metadata: { after: string | null } }>): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const result = await page(after);
    all.push(...result.data);
    if (!result.list_metadata.after || result.data.length === 0) return all;
    after = result.list_metadata.after;
  }
}

/** Turns a service error into the command's error: its code and message, and the exit code it maps to. */
function fromServiceError(error: unknown): never {
  if (isDocevalsError(error)) {
    const issues = error.issues?.map((i) => `  ${i.path || '(body)'}: ${i.message}`).join('\n');
    throw new CliError(`${error.code}: ${error.message}${issues ? `\n${issues}` : ''}`, exitCodeOfApiError(error.code), error);
  }
  throw error;
}

export interface HttpClientOptions {
  /** The server's address, with its base path if the API is mounted under one (`https://host/api/docevals`). */
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

/**
 * The client over a docevals server's REST API (plain `fetch`; SSE through `eventsource`).
 *
 * @example
 * const client = httpClient({ url: 'http://127.0.0.1:3000', apiKey: process.env.DOCEVALS_API_KEY });
 * console.log(await client.listEvaluations());
 */
export function httpClient(options: HttpClientOptions): DocevalsClient {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const headers = (extra: Record<string, string> = {}): Record<string, string> =>
    options.apiKey ? { 'api-key': options.apiKey, ...extra } : extra;

  const send = (method: string, path: string, init: SendInit = {}) => sendRequest(base, doFetch, headers, method, path, init);
  const json = async <T>(method: string, path: string, init?: SendInit): Promise<T> =>
    (await (await send(method, path, init)).json()) as T;
  const ev = (id: string) => `/v1/evals/${encodeURIComponent(id)}`;
  const it = (e: string, i: string) => `${ev(e)}/iterations/${encodeURIComponent(i)}`;

  return {
    target: base,
    listEvaluations: async (filter = {}) =>
      (await allPages<EvaluationSummary>((after) => json('GET', '/v1/evals', { query: { limit: 100, order: 'asc', after, name: filter.name } }))).map(info),
    // The light read: the evaluation without its documents (its name, schema and count are all the CLI needs).
    getEvaluation: async (id) => info(await json<EvaluationOverview>('GET', ev(id), { query: { view: 'summary' } })),
    createEvaluation: async (input) => info(await json<EvaluationSummary>('POST', '/v1/evals', { body: input })),
    listDocuments: (id) =>
      allPages<DocumentSummary>((after) => json('GET', `${ev(id)}/documents`, { query: { limit: 100, order: 'asc', after } })),
    addDocument: (id, document) => json('POST', `${ev(id)}/documents`, { body: document }),
    importAnnotations: (id, format, content) => json('POST', `${ev(id)}/documents/import`, { body: { format, content } }),
    listIterations: async (id) => (await json<{ data: IterationSummary[] }>('GET', `${ev(id)}/iterations`, { query: { view: 'summary' } })).data,
    getIteration: (e, i) => json('GET', it(e, i), { query: { view: 'summary' } }),
    async createIteration(id, settings) {
      const response = await send('POST', `${ev(id)}/iterations/create`, { body: { inference_settings: settings, background: true } });
      const iteration = asSummary((await response.json()) as IterationSummary & { predictions?: unknown[] });
      return { iteration, background: response.status === 202 };
    },
    events: (e, i, signal) => sseEvents(`${base}${it(e, i)}/events`, headers(), doFetch, signal),
    cancelIteration: (e, i) => json('POST', `${it(e, i)}/cancel`),
    compare: (id, b, h, threshold) => json('GET', `${ev(id)}/compare`, { query: { base: b, head: h, threshold } }),
    leaderboard: (id) => json('GET', `${ev(id)}/leaderboard`),
    fields: (e, i) => json('GET', `${it(e, i)}/fields`),
    matrix: (id, after) => json('GET', `${ev(id)}/matrix`, { query: { limit: 1000, after } }),
    async exportIteration(e, i, format) {
      const response = await send('GET', `${it(e, i)}/export`, { query: { format } });
      return response.body ? textChunks(response.body) : (async function* () {})();
    },
    // GET /v1/models lists entries `{ id, extractor, pattern, modalities }` (plain names from older servers).
    models: async () => (await json<{ data: Array<string | { id: string }> }>('GET', '/v1/models')).data.map((m) => (typeof m === 'string' ? m : m.id)),
    listSecrets: async () => {
      const [keys, custom_endpoint] = await Promise.all([
        json<ExternalApiKey[]>('GET', '/v1/secrets/external_api_keys'),
        json<CustomEndpoint>('GET', '/v1/secrets/custom_endpoint'),
      ]);
      return { keys, custom_endpoint };
    },
    setProviderKey: (provider, apiKey) => json('POST', '/v1/secrets/external_api_keys', { body: { provider, api_key: apiKey } }),
    setCustomEndpoint: (input) => json('PUT', '/v1/secrets/custom_endpoint', { body: input }),
    removeSecret: (name) =>
      json('DELETE', name === 'custom' ? '/v1/secrets/custom_endpoint' : `/v1/secrets/external_api_keys/${encodeURIComponent(name)}`),
    close: async () => undefined,
  };
}

/** A local store has no master key to seal secrets with: they live on a server. */
async function localSecrets(): Promise<never> {
  throw new CliError(
    'organization secrets are kept by a server (sealed under its master key), not by a local --data-dir store: pass --url ' +
      '(or set DOCEVALS_URL).',
    EXIT.usage,
  );
}

export interface LocalClientOptions {
  /** The lowdb folder (created when missing). */
  dataDir: string;
  /** @default 'local' */
  organizationId?: string;
  /** Extractor calls in flight per iteration. */
  concurrency?: number;
}

/**
 * The client over an in-process docevals on a lowdb folder: no server. The organization is `local`.
 *
 * @example
 * const client = localClient({ dataDir: './.docevals-data' });
 * const evaluations = await client.listEvaluations();
 * await client.close();
 */
export function localClient(options: LocalClientOptions): DocevalsClient {
  const org = options.organizationId ?? 'local';
  const docevals: Docevals = createDocevals({
    storage: lowdbStorage({ dir: options.dataDir }),
    ...(options.concurrency ? { extraction: { concurrency: options.concurrency } } : {}),
    jobs: { onError: () => undefined },
  });
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      fromServiceError(error);
    }
  };
  return {
    target: `lowdb ${options.dataDir}`,
    dataDir: options.dataDir,
    listEvaluations: (filter = {}) =>
      call(async () =>
        (await allPages<EvaluationSummary>((after) => docevals.evals.list(org, { limit: 100, order: 'asc', after, name: filter.name }))).map(info),
      ),
    getEvaluation: (id) => call(async () => info(await docevals.evals.get(org, { evaluation_id: id, view: 'summary' }))),
    createEvaluation: (input) =>
      call(async () => {
        const { documents, ...created } = await docevals.evals.create(org, input);
        return info({ ...created, document_count: documents.length });
      }),
    listDocuments: (id) =>
      call(() =>
        allPages<DocumentSummary>((after) =>
          docevals.evals.documents.list(org, { evaluation_id: id, limit: 100, order: 'asc', after }) as Promise<{ data: DocumentSummary[]; list_metadata: { after: string | null } }>,
        ),
      ),
    addDocument: (id, document) => call(() => docevals.evals.documents.add(org, { ...document, evaluation_id: id })),
    importAnnotations: (id, format, content) => call(() => docevals.evals.documents.import(org, { evaluation_id: id, format, content })),
    listIterations: (id) => call(async () => (await docevals.evals.iterations.list(org, { evaluation_id: id, view: 'summary' })).data),
    getIteration: (e, i) => call(() => docevals.evals.iterations.get(org, { evaluation_id: e, iteration_id: i, view: 'summary' })),
    createIteration: (id, settings) =>
      call(async () => ({
        iteration: await docevals.evals.iterations.create(org, { evaluation_id: id, inference_settings: settings, background: true }),
        background: true,
      })),
    events: (e, i, signal) => ({
      async *[Symbol.asyncIterator]() {
        try {
          for await (const event of docevals.evals.iterations.events(org, { evaluation_id: e, iteration_id: i })) {
            if (signal.aborted) return;
            yield event;
          }
        } catch (error) {
          fromServiceError(error);
        }
      },
    }),
    cancelIteration: (e, i) => call(() => docevals.evals.iterations.cancel(org, { evaluation_id: e, iteration_id: i })),
    compare: (id, base, head, threshold) => call(() => docevals.evals.compare(org, { evaluation_id: id, base, head, threshold })),
    leaderboard: (id) => call(() => docevals.evals.leaderboard(org, { evaluation_id: id })),
    fields: (e, i) => call(() => docevals.evals.iterations.fields(org, { evaluation_id: e, iteration_id: i })),
    matrix: (id, after) => call(() => docevals.evals.matrix(org, { evaluation_id: id, limit: 1000, ...(after ? { after } : {}) })),
    exportIteration: (e, i, format) => call(async () => (await docevals.evals.iterations.export(org, { evaluation_id: e, iteration_id: i, format })).chunks),
    models: async () => docevals.models(),
    listSecrets: localSecrets,
    setProviderKey: localSecrets,
    setCustomEndpoint: localSecrets,
    removeSecret: localSecrets,
    close: () => docevals.close(),
  };
}
