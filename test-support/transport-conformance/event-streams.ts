import { describe, expect, it } from 'vitest';
import { data, dataUrl } from './expect-outcome.js';
import { CONFORMANCE_EVENT_STREAMS, HELD_FILENAME, releaseHeldExtractions, type Caller, type IterationRef, type Subscription, type Transport } from './transport.js';

/** A running iteration of `caller`: one document answered at once (an event to read), one held ({@link HELD_FILENAME}). */
async function runningIteration(transport: Transport, caller: Caller): Promise<IterationRef> {
  const evaluation = await data(
    transport.call(
      'evals.create',
      {
        name: 'Streams',
        json_schema: { type: 'object', properties: { total: { type: 'number' } } },
        documents: ['quick.txt', HELD_FILENAME].map((filename) => ({ mime_data: { filename, url: dataUrl(filename) }, annotation: { total: 1 } })),
        default_inference_settings: { model: 'vision-1' },
      },
      caller,
    ),
  );
  const iteration = await data(transport.call('evals.iterations.createInBackground', { evaluation_id: evaluation.id }, caller));
  return { evaluation_id: evaluation.id, iteration_id: iteration.id };
}

export function eventStreamCases(transport: () => Transport): void {
  describe('event streams: one cap per organization and service (issue 26)', () => {
    it('refuses the stream past the cap with 429 rate_limited, serves another organization, frees a place on close', async () => {
      const open: Subscription[] = [];
      try {
        const a = await runningIteration(transport(), 'org_a');
        const b = await runningIteration(transport(), 'org_b');
        for (let i = 0; i < CONFORMANCE_EVENT_STREAMS; i++) open.push(await transport().subscribe(a));
        expect(open.map((s) => s.outcome.ok)).toEqual(Array(CONFORMANCE_EVENT_STREAMS).fill(true));
        const refused = await transport().subscribe(a);
        refused.close();
        expect(refused.outcome).toMatchObject({ ok: false, status: 429, code: 'rate_limited' });
        const other = await transport().subscribe(b, 'org_b');
        open.push(other);
        expect(other.outcome.ok).toBe(true);

        // The iteration is held (no event coming): the place frees as soon as the client leaves.
        open.shift()!.close();
        let again = await transport().subscribe(a);
        for (let i = 0; i < 100 && !again.outcome.ok; i++) {
          again.close();
          await new Promise((resolve) => setTimeout(resolve, 20));
          again = await transport().subscribe(a);
        }
        open.push(again);
        expect(again.outcome.ok).toBe(true);
      } finally {
        for (const subscription of open) subscription.close();
        releaseHeldExtractions();
      }
    });
  });
}
