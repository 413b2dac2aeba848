/**
 * Issue 26, stalls over tRPC: a mutation or batch whose body trickles in gets a 408 (`TIMEOUT`, docevals code
 * `request_timeout`) once the body-read time has passed, with `Connection: close`, while organization B's list keeps
 * answering within 500 ms (times DOCEVALS_TEST_SLACK).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { trickleBody } from '../../../test-support/trickle-body.js';
import { serve, type Served } from './serve-fetch-handler.js';

const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? '2');
const BODY_TIMEOUT_MS = 1_000;
const PROBE_BOUND_MS = 500 * SLACK;

let served: Served;
beforeAll(async () => {
  served = await serve({}, { bodyTimeoutMs: BODY_TIMEOUT_MS });
});
afterAll(() => served.close());

it('answers 408 to 20 mutations and batches trickling in, while B is answered', async () => {
  let done = false;
  const latencies: number[] = [];
  const probing = (async () => {
    while (!done) {
      const t = performance.now();
      const probe = await fetch(`${served.url}/evals.list?input=${encodeURIComponent('{}')}`, { headers: { 'api-key': 'key_b' } });
      await probe.text();
      latencies.push(performance.now() - t);
      expect(probe.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const headers = { 'api-key': 'key_a', 'content-type': 'application/json' };
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      i % 2
        ? trickleBody(`${served.url}/evals.create`, { headers, head: '{"name":"', intervalMs: 100 })
        : trickleBody(`${served.url}/evals.create,evals.create?batch=1`, { headers, head: '{"0":{"name":"', intervalMs: 100 }),
    ),
  );
  done = true;
  await probing;
  for (const answer of answers) {
    expect(answer.status).toBe(408);
    const error = ((Array.isArray(answer.body) ? answer.body[0] : answer.body) as { error: { data: { code: string } } }).error;
    expect(error.data).toMatchObject({ code: 'TIMEOUT' });
    expect(answer.headers.connection).toBe('close');
    expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_000 * SLACK);
  }
  console.log(
    `[trpc slow-body] 20 slow bodies answered 408 in at most ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms; ` +
      `B's slowest of ${latencies.length} calls ${Math.round(Math.max(...latencies))} ms`,
  );
  expect(latencies.length).toBeGreaterThan(5);
  expect(Math.max(...latencies)).toBeLessThanOrEqual(PROBE_BOUND_MS);
  expect(await served.docevals.evals.list('org_a', {})).toMatchObject({ data: [] });
});
