import { describe, expect, it } from 'vitest';
import { data } from './expect-outcome.js';
import { CONFORMANCE_BODY_TIMEOUT_MS, type Transport } from './transport.js';

const SLACK = Number(process.env.DOCEVALS_TEST_SLACK ?? '2');

export function slowBodyCases(transport: () => Transport): void {
  describe('slow bodies: a bounded answer, and nothing held meanwhile (issue 26)', () => {
    it('answers 408 request_timeout with Connection: close to bodies trickling in, stores nothing, and answers another organization meanwhile', async () => {
      const count = async () => (await data(transport().call('evals.list', { limit: 100 }))).data.length as number;
      const before = await count();
      let done = false;
      const latencies: number[] = [];
      const probing = (async () => {
        while (!done) {
          const started = performance.now();
          await data(transport().call('evals.list', { limit: 10 }, 'org_b'));
          latencies.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const answers = await Promise.all(Array.from({ length: 6 }, () => transport().trickle('evals.create', '{"name":"')));
      done = true;
      await probing;

      for (const answer of answers) {
        expect(answer.outcome).toMatchObject({ ok: false, status: 408, code: 'request_timeout' });
        expect(answer.connection).toBe('close');
        // Not before the body-read time, and not long after it: the timer is the request's own, not a queue's.
        expect(answer.ms).toBeGreaterThanOrEqual(CONFORMANCE_BODY_TIMEOUT_MS - 50);
        expect(answer.ms).toBeLessThan(CONFORMANCE_BODY_TIMEOUT_MS + 2_000 * SLACK);
      }
      expect(latencies.length).toBeGreaterThan(0);
      expect(Math.max(...latencies)).toBeLessThanOrEqual(500 * SLACK);
      expect(await count()).toBe(before);
    });
  });
}
