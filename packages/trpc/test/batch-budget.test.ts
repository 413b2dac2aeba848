/**
 * Issue 26: a tRPC batch's answers share a byte budget (`limits.maxBatchAnswerBytes`). A batch of 16 whole
 * evaluations answers the first ones that fit and a 413 `PAYLOAD_TOO_LARGE` for the rest (their answers dropped as
 * soon as built), instead of one answer of 16 evaluations held in memory; a single call is not limited by it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type Served } from './serve-fetch-handler.js';

const BUDGET = 400_000;
let served: Served;
let evaluationId: string;
let oneAnswerBytes: number;

beforeAll(async () => {
  served = await serve({}, { maxBatchAnswerBytes: BUDGET });
  const note = 'x'.repeat(1_000);
  const evaluation = await served.docevals.evals.create('org_a', {
    name: 'large',
    json_schema: { type: 'object', properties: { note: { type: 'string' } } },
    documents: Array.from({ length: 120 }, (_, i) => ({
      mime_data: { filename: `d${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`doc ${i}`).toString('base64')}` },
      annotation: { note },
    })),
  });
  evaluationId = evaluation.id;
  oneAnswerBytes = JSON.stringify(evaluation).length;
});
afterAll(() => served.close());

const get = (path: string) => fetch(`${served.url}/${path}`, { headers: { 'api-key': 'key_a' } });

it('answers the calls of a batch that fit its byte budget, and 413 for the others', async () => {
  expect(oneAnswerBytes).toBeGreaterThan(BUDGET / 4);
  expect(oneAnswerBytes).toBeLessThan(BUDGET);
  const input = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(i), { evaluation_id: evaluationId }]));
  const response = await get(`${Array(16).fill('evals.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`);
  const text = await response.text();
  const answers = JSON.parse(text) as Array<{ result?: { data: { id: string } }; error?: { data: { code: string; httpStatus: number }; message: string } }>;
  expect(answers).toHaveLength(16);
  const ok = answers.filter((a) => a.result);
  const refused = answers.filter((a) => a.error);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  expect(ok.length).toBeLessThanOrEqual(Math.floor(BUDGET / oneAnswerBytes));
  expect(ok.every((a) => a.result!.data.id === evaluationId)).toBe(true);
  expect(refused.length).toBe(16 - ok.length);
  for (const a of refused) {
    expect(a.error!.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
    expect(a.error!.message).toContain(`${BUDGET} bytes`);
  }
  // The whole answer stays within the budget plus the error bodies (never 16 evaluations).
  expect(text.length).toBeLessThan(BUDGET + 16 * 1_000);
});

it('does not limit a single call, nor a batch whose answers fit', async () => {
  const single = await get(`evals.get?input=${encodeURIComponent(JSON.stringify({ evaluation_id: evaluationId }))}`);
  expect(single.status).toBe(200);
  const input = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [String(i), {}]));
  const batch = await get(`${Array(4).fill('evals.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`);
  const answers = (await batch.json()) as Array<{ result?: unknown }>;
  expect(answers.filter((a) => !a.result)).toEqual([]);
  expect(batch.status).toBe(200);
});
