/**
 * Issue 13 over tRPC: `createDocevalsFetchHandler` served on 127.0.0.1 (node http, bodies streamed into web
 * Requests), two organizations. Each attack gets a documented 4xx or a bounded answer within 2 s while organization
 * B's list answers within 500 ms, and the server stays up.
 */
import { request as httpRequest } from 'node:http';
import { DocevalsError, LIMITS } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY, serve, type Served } from './serve-fetch-handler.js';

/**
 * The issue's bounds: the attack answered within 2 s, the other organization within 500 ms, times
 * DOCEVALS_TEST_SLACK (default 2, since this suite runs many workers on 2 cores at once; set 1 on a quiet machine to
 * check the issue's figures exactly). The stalls they catch lasted 9 to 17 s, or crashed the process.
 */
const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? '2');
const ATTACK_BOUND_MS = 2_000 * SLACK;
const PROBE_BOUND_MS = 500 * SLACK;

const INVOICE = `data:text/plain;base64,${Buffer.from('Invoice number: INV-1\nTotal: 42\n').toString('base64')}`;

let served: Served;
beforeAll(async () => {
  served = await serve();
});
afterAll(() => served.close());

async function call(path: string, body: BodyInit | undefined, key = 'key_a', headers: Record<string, string> = {}) {
  const response = await fetch(`${served.url}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'api-key': key, 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as any };
}

const mutate = (path: string, input: unknown, key?: string) => call(path, JSON.stringify(input), key);

/** Runs `attack` and, 50 ms into it, organization B's list; both durations, and the server still answers. */
async function underAttack<T>(attack: () => Promise<T>) {
  const started = performance.now();
  const attacking = attack().then((result) => ({ result, attackMs: performance.now() - started }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const probeStarted = performance.now();
  const probe = await call(`evals.list?input=${encodeURIComponent('{}')}`, undefined, 'key_b');
  const probeMs = performance.now() - probeStarted;
  expect(probe.status).toBe(200);
  const outcome = await attacking;
  expect((await call(`evals.list?input=${encodeURIComponent('{}')}`, undefined)).status).toBe(200);
  return { ...outcome, probeMs };
}

function nested(depth: number, width: number, seed: number): unknown {
  if (depth === 0) return `value ${seed}`;
  return Array.from({ length: width }, (_, i) => nested(depth - 1, width, seed * width + i));
}

/** POSTs `totalBytes` of JSON whitespace with chunked transfer encoding; resolves with the status once answered. */
function streamChunked(url: string, totalBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'api-key': 'key_a', 'content-type': 'application/json' } });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (!answered && !req.destroyed && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!answered && !req.destroyed) req.end();
    };
    write();
  });
}

describe('H1 and H4 over tRPC: bodies are bounded before parsing, and errors match REST', () => {
  it('answers 413 to 10 million empty documents (31 MB) without parsing them', async () => {
    const raw = `{"name":"x","json_schema":{},"documents":[${'{},'.repeat(10_000_000 - 1)}{}]}`;
    // The same bytes in one string (a few containers): what sending and reading 31 MB costs on this machine now.
    const idleStarted = performance.now();
    await call('evals.create', `{"json_schema":{},"name":"${'x'.repeat(raw.length - 29)}"}`);
    const idleMs = performance.now() - idleStarted;
    const { result, attackMs, probeMs } = await underAttack(() => call('evals.create', raw));
    expect(result.status).toBe(413);
    expect(result.json.error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', docevalsCode: 'payload_too_large', httpStatus: 413 });
    // 2 s, or 3x the same-size body's time under load (times SLACK): parsing the 10 million containers took 9-17 s.
    expect(attackMs).toBeLessThan(Math.max(ATTACK_BOUND_MS, 3 * SLACK * idleMs));
    expect(probeMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('answers 413 to a chunked body over the limit, as REST does', async () => {
    expect(await streamChunked(`${served.url}/evals.create`, MAX_BODY + 1024 * 1024)).toBe(413);
  });

  it('refuses bytes that are not UTF-8 with 400 bad_request instead of storing U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","json_schema":{}}')]);
    const r = await call('evals.create', bytes);
    expect(r.status).toBe(400);
    expect(r.json.error.data.docevalsCode).toBe('bad_request');
    expect((await served.docevals.evals.list('org_a', {})).data).toEqual([]);
  });

  it(`refuses a batch of more than ${LIMITS.maxBatchSize} calls with 400`, async () => {
    const paths = Array.from({ length: LIMITS.maxBatchSize + 1 }, () => 'evals.list').join(',');
    const input = encodeURIComponent(JSON.stringify({}));
    const over = await fetch(`${served.url}/${paths}?batch=1&input=${input}`, { headers: { 'api-key': 'key_a' } });
    expect(over.status).toBe(400);
    const within = Array.from({ length: LIMITS.maxBatchSize }, () => 'evals.list').join(',');
    const ok = await fetch(`${served.url}/${within}?batch=1&input=${input}`, { headers: { 'api-key': 'key_a' } });
    expect(ok.status).toBe(200);
  });

  it('caps validation issues at 100 plus one counting the rest', async () => {
    const r = await mutate('evals.create', { name: 'x', json_schema: {}, documents: Array.from({ length: 3_000 }, () => ({ mime_data: {} })) });
    expect(r.status).toBe(400);
    expect(r.json.error.data.docevalsCode).toBe('validation_error');
    expect(r.json.error.data.issues).toHaveLength(LIMITS.maxIssues + 1);
  });
});

describe('H2 and H3 over tRPC: bounded work', () => {
  it('answers a catastrophic pattern in bounded time', async () => {
    const schema = { type: 'object', properties: { invoice_number: { type: 'string', pattern: '^(a+)+$' } } };
    const processor = await mutate('processors.create', { name: 'p', model: 'local-rules', json_schema: schema });
    expect(processor.status).toBe(200);
    const url = `data:text/plain;base64,${Buffer.from(`Invoice number: ${'a'.repeat(40)}!\n`).toString('base64')}`;
    const { result, attackMs, probeMs } = await underAttack(() =>
      mutate('processors.submit', { processor_id: processor.json.result.data.id, document: { filename: 'a.txt', url } }),
    );
    expect(result.status).not.toBe(500);
    expect(attackMs).toBeLessThan(ATTACK_BOUND_MS);
    expect(probeMs).toBeLessThan(PROBE_BOUND_MS);
  });

  it('imports 4-level nested arrays of width 10 with positional aligned figures', async () => {
    const input = {
      name: 'nested',
      json_schema: {},
      default_inference_settings: { model: 'local-rules' },
      documents: [{ mime_data: { filename: 'n.txt', url: INVOICE }, annotation: { rows: nested(4, 10, 1) } }],
      iterations: [{ predictions: [{ prediction: { rows: nested(4, 10, 2) } }] }],
    };
    const { result, attackMs, probeMs } = await underAttack(() => mutate('evals.create', input));
    expect(result.status).toBe(200);
    const item = result.json.result.data.iterations[0].metric_results.item_metrics[0];
    expect(item.aligned_similarity).toBe(item.similarity);
    expect(attackMs).toBeLessThan(ATTACK_BOUND_MS);
    expect(probeMs).toBeLessThan(PROBE_BOUND_MS);
  });
});

describe('M3, L1, L6 over tRPC', () => {
  it("does not resolve organization B's $ref with a $id organization A declared", async () => {
    const shared = { $id: 'https://schemas.example/trpc-shared.json', type: 'string' };
    const a = await mutate('processors.create', { name: 'a', model: 'local-rules', json_schema: { $defs: { s: shared } } });
    expect(a.status).toBe(200);
    const b = await mutate(
      'processors.create',
      { name: 'b', model: 'local-rules', json_schema: { properties: { x: { $ref: 'https://schemas.example/trpc-shared.json' } } } },
      'key_b',
    );
    expect(b.status).toBe(400);
    expect(b.json.error.data.docevalsCode).toBe('validation_error');
    expect(b.json.error.data.issues[0].path).toBe('json_schema');
  });

  it('refuses a __proto__ key with validation_error and its path', async () => {
    const raw = `{"name":"x","json_schema":{},"documents":[{"mime_data":{"filename":"a.txt","url":"${INVOICE}"},"annotation":{"__proto__":{"a":1}}}]}`;
    const r = await call('evals.create', raw);
    expect(r.status).toBe(400);
    expect(r.json.error.data.docevalsCode).toBe('validation_error');
    expect(r.json.error.data.issues).toEqual([{ path: 'documents.0.annotation.__proto__', message: expect.stringContaining('__proto__') }]);
  });

  it('sends storage failures without the store’s details, and logs them', async () => {
    served.storage.fault = 'unreachable';
    try {
      const r = await call(`evals.list?input=${encodeURIComponent('{}')}`, undefined);
      expect(r.status).toBe(503);
      expect(r.json.error.message).toBe('The memory storage failed during evaluations.list; the server logged the cause.');
      expect(JSON.stringify(r.json)).not.toContain('ECONNREFUSED');
      expect(served.errors.at(-1)).toBeInstanceOf(DocevalsError);
    } finally {
      served.storage.fault = 'none';
    }
  });
});
