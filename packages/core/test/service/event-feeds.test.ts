/**
 * Issue 26, SSE fan-out: one storage reader per running iteration in a process feeds all its subscribers, each gets
 * every event in order, and a subscriber that leaves costs nothing from then on (the reader stops with the last one).
 * Store calls are counted through a wrapper over a real memory store.
 */
import { memoryStorage } from '../support/memory-storage.js';
import { afterEach, describe, expect, it } from 'vitest';
import { countingStorage } from '../../../../test-support/counting-storage.js';
import { createDocevals, type Docevals, type Extractor, type IterationEvent } from '../../src/index.js';
import { dataUrl, invoiceSchema, ORG } from './fixtures.js';

/** An extractor whose calls each wait until the test releases them, one at a time. */
function steppedExtractor() {
  const pending: Array<() => void> = [];
  const extractor: Extractor = {
    name: 'stepped',
    models: ['stepped'],
    async extract({ document }) {
      await new Promise<void>((resolve) => pending.push(resolve));
      return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
    },
  };
  const releaseOne = async () => {
    while (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    pending.shift()!();
  };
  return { extractor, releaseOne, releaseAll: () => pending.splice(0).forEach((resolve) => resolve()) };
}

const services: Array<{ releaseAll: () => void; docevals: Docevals }> = [];
afterEach(async () => {
  for (const service of services.splice(0)) service.releaseAll();
});

async function runningIteration(documents: number) {
  const storage = countingStorage(memoryStorage());
  const stepped = steppedExtractor();
  const docevals = createDocevals({ storage, extractors: [stepped.extractor], extraction: { concurrency: 1, backoffBaseMs: 1, backoffMaxMs: 2 } });
  services.push({ releaseAll: stepped.releaseAll, docevals });
  const evaluation = await docevals.evals.create(ORG, {
    name: 'feeds',
    json_schema: invoiceSchema,
    default_inference_settings: { model: 'stepped' },
    documents: Array.from({ length: documents }, (_, i) => ({
      mime_data: { filename: `d${i}.json`, url: dataUrl(JSON.stringify({ vendor: 'v', total: i })) },
      annotation: { vendor: 'v', total: i },
    })),
  });
  const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
  const ref = { evaluation_id: evaluation.id, iteration_id: iteration.id };
  return { storage, docevals, ref, ...stepped };
}

/** Reads a stream to its end, keeping each event as it comes. */
function collect(events: AsyncIterable<IterationEvent>) {
  const seen: IterationEvent[] = [];
  const done = (async () => {
    for await (const event of events) seen.push(event);
    return seen;
  })();
  return { seen, done };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** The store calls only an events reader makes (the subscribe step's own input check reads iterations.get). */
const READER_CALLS = ['events.list', 'events.get', 'predictions.totals'];

describe('event feeds', () => {
  it('200 subscribers of one running iteration: the store sees one reader; each gets every event, in order', async () => {
    const { storage, docevals, ref, releaseOne } = await runningIteration(5);
    storage.reset();
    const streams = Array.from({ length: 200 }, () => collect(docevals.evals.iterations.events(ORG, ref)));
    await releaseOne();
    await until(() => streams[0]!.seen.some((event) => event.type === 'document'));
    await releaseOne();
    await until(() => streams[0]!.seen.filter((event) => event.type === 'document').length === 2);
    // One joining late, resuming after the second document: served from what the reader already has.
    const resumeAfter = streams[0]!.seen.filter((event) => event.type === 'document')[1]!.id;
    const late = collect(docevals.evals.iterations.events(ORG, { ...ref, last_event_id: resumeAfter }));
    for (let i = 0; i < 3; i++) await releaseOne();
    const logs = await Promise.all(streams.map((stream) => stream.done));

    const first = logs[0]!;
    expect(first.filter((event) => event.type === 'document')).toHaveLength(5);
    expect(first.at(-1)!.type).toBe('completed');
    expect(new Set(first.filter((event) => event.type === 'document').map((event) => event.id)).size).toBe(5);
    for (const log of logs) expect(log).toEqual(first);
    const ids = first.map((event) => event.id);
    expect(await late.done).toEqual(first.slice(ids.lastIndexOf(resumeAfter) + 1));
    // A reader per subscriber would have listed the events 200 times at least, at its first read.
    expect(storage.reads('events.list')).toBeLessThan(60);
    expect(storage.reads(...READER_CALLS)).toBeLessThan(120);
  });

  it('a subscriber that leaves stops at once, and the reads stop when the last one leaves', async () => {
    const { storage, docevals, ref } = await runningIteration(1);
    const iterators = Array.from({ length: 3 }, () => docevals.evals.iterations.events(ORG, ref)[Symbol.asyncIterator]());
    const pending = iterators.map((iterator) => iterator.next());
    storage.reset();
    await until(() => storage.reads('events.list') >= 2); // the shared reader is polling: nothing has happened yet
    // The first leaves: its pending read ends now, not at the iteration's next event; the reader goes on for the others.
    await iterators[0]!.return!();
    expect(await pending[0]).toEqual({ done: true, value: undefined });
    const before = storage.reads('events.list');
    await until(() => storage.reads('events.list') > before);
    await Promise.all(iterators.slice(1).map((iterator) => iterator.return!()));
    expect(await Promise.all(pending.slice(1))).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // a read under way when they left finishes
    storage.reset();
    await new Promise((resolve) => setTimeout(resolve, 700)); // more than two polls of a reader still running
    expect(storage.reads(...READER_CALLS)).toBe(0);
  });
});
