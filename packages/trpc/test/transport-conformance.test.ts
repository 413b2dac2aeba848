import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, localRulesExtractor, type Extractor } from '@docevals/core';
import { operations } from '@docevals/core/internal';
import { TRPCClientError } from '@trpc/client';
import { trickleBody } from '../../../test-support/trickle-body.js';
import {
  CONFORMANCE_BODY_TIMEOUT_MS,
  CONFORMANCE_EVENT_STREAMS,
  transportConformance,
  VISION_EXTRACTOR,
  type Caller,
  type IterationRef,
  type Outcome,
  type Subscription,
  type Transport,
} from '../../../test-support/transport-conformance/index.js';
import type { DocevalsErrorData } from '../src/index.js';
import { serveHandler } from './serve-fetch-handler.js';
import { serveRouter } from './serve-router.js';

// The shared cases of issue 29 (test-support/transport-conformance/), each operation called through a typed tRPC
// client over HTTP: the procedure at the row's name, a query or a mutation as the row says.

const KEYS: Record<Caller, string | undefined> = { org_a: 'key_org_a', org_b: 'key_org_b', anonymous: undefined };

transportConformance('tRPC', async (): Promise<Transport> => {
  const docevals = createDocevals({
    storage: memoryStorage(),
    extractors: [localRulesExtractor(), VISION_EXTRACTOR as Extractor],
    limits: { maxEventStreamsPerOrganization: CONFORMANCE_EVENT_STREAMS },
  });
  const served = await serveRouter(docevals);
  // Bodies are read by the docevals fetch handler (what the standalone server mounts), over the same service.
  const handler = await serveHandler(docevals, { bodyTimeoutMs: CONFORMANCE_BODY_TIMEOUT_MS });
  const handlerKeys: Record<Caller, string | undefined> = { org_a: 'key_a', org_b: 'key_b', anonymous: undefined };
  return {
    async call(operation, input, caller = 'org_a'): Promise<Outcome> {
      const kind = (operations as Record<string, { procedure?: 'query' | 'mutation' }>)[operation]?.procedure;
      if (kind === undefined) throw new Error(`no tRPC procedure for ${operation}`);
      // The typed client is a proxy: walking it by the row's name reaches the procedure.
      const procedure = operation.split('.').reduce<any>((node, key) => node[key], served.client(KEYS[caller]));
      try {
        return { ok: true, data: await procedure[kind === 'query' ? 'query' : 'mutate'](input) };
      } catch (error) {
        if (!(error instanceof TRPCClientError)) throw error;
        const data = error.data as DocevalsErrorData;
        return { ok: false, status: data.httpStatus, code: data.docevalsCode, message: error.message, ...(data.issues ? { issues: data.issues } : {}) };
      }
    },
    subscribe: (ref, caller = 'org_a') => subscribe(served.url, ref, KEYS[caller]),
    async trickle(operation, head, caller = 'org_a') {
      const key = handlerKeys[caller];
      const answer = await trickleBody(`${handler.url}/${operation}`, {
        headers: { ...(key ? { 'api-key': key } : {}), 'content-type': 'application/json' },
        head,
        intervalMs: 100,
      });
      const error = (answer.body as { error?: { message: string; data: DocevalsErrorData } }).error;
      const outcome: Outcome = error
        ? { ok: false, status: error.data.httpStatus, code: error.data.docevalsCode, message: error.message }
        : { ok: true, data: answer.body };
      return { outcome, ms: answer.ms, connection: answer.headers.connection as string | undefined };
    },
    async close() {
      await handler.close();
      await served.close();
      await docevals.close();
    },
  };
});

/**
 * `iterations.events` as httpSubscriptionLink opens it (SSE): open at its first event of the iteration (tracked, with an
 * `id`), refused at a `serialized-error` (tRPC sends `connected` before the procedure runs: not yet an answer).
 */
async function subscribe(url: string, ref: IterationRef, key: string | undefined): Promise<Subscription> {
  const controller = new AbortController();
  const close = () => controller.abort();
  const response = await fetch(`${url}/evals.iterations.events?input=${encodeURIComponent(JSON.stringify(ref))}`, {
    headers: key ? { 'Api-Key': key } : {},
    signal: controller.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the subscription ended without an answer: ${text}`);
    text += value;
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const payload = /^data: (.*)$/m.exec(block)?.[1];
      if (event === 'serialized-error' && payload) {
        const error = JSON.parse(payload) as { message: string; data: DocevalsErrorData };
        return { outcome: { ok: false, status: error.data.httpStatus, code: error.data.docevalsCode, message: error.message }, close };
      }
      if (/^id: /m.test(block)) return { outcome: { ok: true, data: null }, close };
    }
  }
}
