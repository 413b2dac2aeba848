/**
 * Issue 26, stalls: a client that sends its body slowly (JSON, CSV, multipart) gets a 408 `request_timeout` once
 * the body-read time has passed, with `Connection: close`, and holds nothing but its own connection meanwhile:
 * organization B's `GET /v1/evals` stays within 500 ms (times DOCEVALS_TEST_SLACK) the whole time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { trickleBody, type TrickleResult } from '../../../test-support/trickle-body.js';
import { KEY_A, KEY_B, startRestServer, type RestServer } from './support/rest-server.js';

const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? '2');
const BODY_TIMEOUT_MS = 1_000;
const PROBE_BOUND_MS = 500 * SLACK;

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({ limits: { bodyTimeoutMs: BODY_TIMEOUT_MS } });
  api.server.keepAliveTimeout = 120_000;
});
afterAll(() => api.close());

/** Trickles a body; answers with how many bytes beyond `head` the client had sent when the server answered. */
const slowly = async (path: string, contentType: string, head: string) => {
  const answer = await trickleBody(`${api.url}${path}`, { headers: { 'api-key': KEY_A, 'content-type': contentType }, head, intervalMs: 100 });
  return { ...answer, trickled: answer.bytesSent - Buffer.byteLength(head) };
};

it('answers 408 to 30 bodies trickling in (JSON, CSV, multipart) after the body-read time, while B is answered', async () => {
  let done = false;
  const latencies: number[] = [];
  const probing = (async () => {
    while (!done) {
      const t = performance.now();
      const probe = await api.call('GET', '/v1/evals', { key: KEY_B });
      latencies.push(performance.now() - t);
      expect(probe.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const attacks: Array<Promise<TrickleResult & { trickled: number }>> = [];
  for (let i = 0; i < 10; i++) {
    attacks.push(slowly('/v1/evals', 'application/json', '{"name":"'));
    attacks.push(slowly('/v1/evals/eval_x/documents/import', 'text/csv', 'document_id,annotation.total\n'));
    attacks.push(
      slowly(
        '/v1/processors/proc_x/submit',
        'multipart/form-data; boundary=xyz',
        '--xyz\r\nContent-Disposition: form-data; name="document"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n',
      ),
    );
  }
  const answers = await Promise.all(attacks);
  done = true;
  await probing;

  for (const answer of answers) {
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ error: { code: 'request_timeout' } });
    expect(answer.headers.connection).toBe('close');
    // Not before the body-read time; and not long after it (the timer is the request's own, not a queue's).
    expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_000 * SLACK);
    // The client kept sending: the answer came from the timeout, not from a body that ended.
    expect(answer.trickled).toBeGreaterThanOrEqual(5);
  }
  console.log(
    `[slow-body] 30 slow bodies answered 408 in at most ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms; ` +
      `B's slowest of ${latencies.length} calls ${Math.round(Math.max(...latencies))} ms`,
  );
  expect(latencies.length).toBeGreaterThan(5);
  expect(Math.max(...latencies)).toBeLessThanOrEqual(PROBE_BOUND_MS);
  // Nothing was created, and the server is up.
  expect((await api.call('GET', '/v1/evals')).body.data).toEqual([]);
  expect(api.unexpected).toEqual([]);
});

it('a body whose bytes trickle in but end before the body-read time is read whole', async () => {
  const answer = await trickleBody(`${api.url}/v1/evals`, {
    headers: { 'api-key': KEY_A, 'content-type': 'application/json' },
    head: '{"name":"in time","json_schema":{"type":"object"}',
    intervalMs: 100,
    count: 5,
    tail: '}',
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ name: 'in time' });
});
