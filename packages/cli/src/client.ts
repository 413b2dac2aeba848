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
import { EventSource } from 'eventsource';
import { CliError, EXIT, exitCodeOfApiError } from './errors.js';

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

  async function send(method: string, path: string, init: { query?: Record<string, string | number | undefined>; body?: unknown } = {}): Promise<Response> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: headers(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, EXIT.server, error);
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let body: { error?: { code?: string; message?: string; issues?: Array<{ path: string; message: string }> } } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not JSON: a proxy's page, say its status only
    }
    const e = body.error;
    const issues = e?.issues?.map((i) => `  ${i.path || '(body)'}: ${i.message}`).join('\n');
    const hint = response.status === 401 ? ' (set --api-key or DOCEVALS_API_KEY)' : '';
    throw new CliError(
      `${method} ${url.pathname} answered ${response.status}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? (text.slice(0, 200) || response.statusText)}${hint}${issues ? `\n${issues}` : ''}`,
      exitCodeOfApiError(e?.code ?? '', response.status),
      body,
    );
  }
  const json = async <T>(method: string, path: string, init?: Parameters<typeof send>[2]): Promise<T> =>
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
      const body = response.body;
      if (!body) return (async function* () {})();
      return body.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>;
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

/**
 * A server from before background jobs answers the whole iteration without `status`, `progress` and `usage`: it
 * is done, and its predictions say how many documents it ran.
 */
function asSummary(iteration: IterationSummary & { predictions?: unknown[] }): IterationSummary {
  const total = iteration.predictions?.length ?? 0;
  return {
    ...iteration,
    status: iteration.status ?? 'completed',
    progress: iteration.progress ?? { total, succeeded: total, failed: 0, pending: 0 },
    usage: iteration.usage ?? { input_tokens: 0, output_tokens: 0, cost: 0 },
    error: iteration.error ?? null,
  };
}

const EVENT_TYPES = ['document', 'progress', 'completed', 'failed', 'cancelled'] as const;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * An iteration's SSE stream as an async iterable. `eventsource` reconnects on its own and sends `Last-Event-ID`,
 * so a dropped connection loses and repeats nothing; the iterable ends after the final event or on `signal`.
 */
function sseEvents(url: string, headers: Record<string, string>, doFetch: typeof fetch, signal: AbortSignal): AsyncIterable<IterationEvent> {
  return {
    [Symbol.asyncIterator]() {
      const queue: IterationEvent[] = [];
      let wake: (() => void) | null = null;
      let failure: CliError | null = null;
      let done = false;
      const source = new EventSource(url, {
        fetch: (input, init) => doFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
      });
      const notify = () => {
        wake?.();
        wake = null;
      };
      const finish = () => {
        done = true;
        source.close();
        notify();
      };
      for (const type of EVENT_TYPES) {
        source.addEventListener(type, (message) => {
          queue.push({ id: message.lastEventId, type, data: JSON.parse(String(message.data)) as unknown } as IterationEvent);
          if (FINAL.has(type)) finish();
          else notify();
        });
      }
      source.onerror = (event) => {
        // The server's `error` event: the stream failed after it opened; its data is the REST error body.
        const data = (event as unknown as { data?: unknown }).data;
        if (typeof data === 'string' && !done) {
          let body: { error?: { code?: string; message?: string } } = {};
          try {
            body = JSON.parse(data) as typeof body;
          } catch {
            // not JSON: said as it is below
          }
          failure = new CliError(`the events stream failed: ${body.error?.code ?? 'error'}: ${body.error?.message ?? data}`, exitCodeOfApiError(body.error?.code ?? 'internal_error'));
          finish();
          return;
        }
        // A closed source (4xx, wrong content type) does not reconnect: report it. Otherwise eventsource retries.
        if (source.readyState === EventSource.CLOSED && !done) {
          failure = new CliError(`the events stream of ${url} failed: ${event.message ?? `status ${event.code ?? '?'}`}`, event.code && event.code < 500 ? EXIT.refused : EXIT.server);
          finish();
        }
      };
      signal.addEventListener('abort', finish, { once: true });
      return {
        async next(): Promise<IteratorResult<IterationEvent>> {
          for (;;) {
            const event = queue.shift();
            if (event) return { value: event, done: false };
            if (failure) throw failure;
            if (done) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
          }
        },
        async return(): Promise<IteratorResult<IterationEvent>> {
          finish();
          return { value: undefined, done: true };
        },
      };
    },
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
