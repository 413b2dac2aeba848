import { localRulesExtractor, type Extractor } from '@docevals/core';
import { operations, type RestRoute } from '@docevals/core/internal';
import { trickleBody } from '../../../test-support/trickle-body.js';
import {
  CONFORMANCE_BODY_TIMEOUT_MS,
  CONFORMANCE_EVENT_STREAMS,
  transportConformance,
  VISION_EXTRACTOR,
  type Caller,
  type Outcome,
  type Transport,
} from '../../../test-support/transport-conformance/index.js';
import { KEY_A, KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

// The shared cases of issue 29 (test-support/transport-conformance/), each operation called over fetch at the
// route its row of the core's table declares.

/** Operations REST serves through their `…Any` row, with the field that picks the shape. */
const VIA: Record<string, [string, Record<string, string | boolean>]> = {
  'evals.get': ['evals.getAny', {}],
  'evals.getSummary': ['evals.getAny', { view: 'summary' }],
  'evals.iterations.get': ['evals.iterations.getAny', {}],
  'evals.iterations.getSummary': ['evals.iterations.getAny', { view: 'summary' }],
  'evals.iterations.list': ['evals.iterations.listAny', {}],
  'evals.iterations.listSummaries': ['evals.iterations.listAny', { view: 'summary' }],
  'evals.iterations.create': ['evals.iterations.createAny', {}],
  'evals.iterations.createInBackground': ['evals.iterations.createAny', { background: true }],
};

const KEYS: Record<Caller, string | null> = { org_a: KEY_A, org_b: KEY_B, anonymous: null };

/** The route of `name`, the path with its parameters filled in, and the rest of the input where the route takes it. */
function request(name: string, input: Record<string, unknown>) {
  const [row, extra] = VIA[name] ?? [name, {}];
  const declared = (operations as Record<string, { rest?: RestRoute | readonly RestRoute[] }>)[row]?.rest;
  if (declared === undefined) throw new Error(`no REST route for ${name}`);
  const route: RestRoute = 'path' in declared ? declared : declared[0]!;
  const rest: Record<string, unknown> = { ...input, ...extra };
  const path = route.path.replace(/\{(\w+)\}/g, (_, field: string) => {
    const value = rest[field];
    delete rest[field];
    return encodeURIComponent(String(value));
  });
  if (route.located) delete rest.evaluation_id;
  const query = new URLSearchParams();
  if (route.input === 'query') {
    for (const [field, value] of Object.entries(rest)) for (const item of [value].flat()) query.append(field, String(item));
  }
  const body = route.input === 'body' && (Object.keys(rest).length > 0 || !route.bodyOptional) ? rest : undefined;
  return { method: route.method.toUpperCase(), path: query.size > 0 ? `${path}?${query}` : path, body };
}

async function restTransport(api: RestServer): Promise<Transport> {
  return {
    async call(operation, input = {}, caller = 'org_a'): Promise<Outcome> {
      const { method, path, body } = request(operation, input as Record<string, unknown>);
      const response = await api.call(method, path, { key: KEYS[caller], ...(body === undefined ? {} : { body }) });
      if (response.status < 400) return { ok: true, data: response.body };
      const { code, message, issues } = response.body.error;
      return { ok: false, status: response.status, code, message, ...(issues ? { issues } : {}) };
    },
    async subscribe(ref, caller = 'org_a') {
      const controller = new AbortController();
      const key = KEYS[caller];
      const path = `/v1/evals/${ref.evaluation_id}/iterations/${ref.iteration_id}/events`;
      const response = await fetch(`${api.url}${path}`, { headers: key ? { 'api-key': key } : {}, signal: controller.signal });
      const close = () => controller.abort();
      if (response.status !== 200) {
        const { code, message } = (await response.json()).error;
        return { outcome: { ok: false, status: response.status, code, message }, close };
      }
      await response.body!.getReader().read();
      return { outcome: { ok: true, data: null }, close };
    },
    async trickle(operation, head, caller = 'org_a') {
      const { path } = request(operation, {});
      const key = KEYS[caller];
      const answer = await trickleBody(`${api.url}${path}`, {
        headers: { ...(key ? { 'api-key': key } : {}), 'content-type': 'application/json' },
        head,
        intervalMs: 100,
      });
      const body = answer.body as { error?: { code: string; message: string } };
      const outcome: Outcome = body.error ? { ok: false, status: answer.status, code: body.error.code, message: body.error.message } : { ok: true, data: body };
      return { outcome, ms: answer.ms, connection: answer.headers.connection as string | undefined };
    },
    close: () => api.close(),
  };
}

transportConformance('REST', async () =>
  restTransport(
    await startRestServer({
      limits: { bodyTimeoutMs: CONFORMANCE_BODY_TIMEOUT_MS },
      docevals: {
        extractors: [localRulesExtractor(), VISION_EXTRACTOR as Extractor],
        limits: { maxEventStreamsPerOrganization: CONFORMANCE_EVENT_STREAMS },
      },
    }),
  ),
);
