/**
 * The JobWork steps a per-document queue calls (docs/spec/jobs.md, Queue mode): plan, runDocument, finish, describe,
 * driven by hand through a runner that only captures them (what @docevals/bullmq's workers do across processes).
 */
import { describe, expect, it, vi } from 'vitest';
import { aesGcmCipher, generateMasterKey, parseMasterKey, QUEUE_LEASE_OWNER, SECRETS_SCOPE, type Extractor, type ExtractionRequest, type IterationRef, type JobRunner, type JobWork, type Storage } from '../../src/internal.js';
import { memoryStorage } from '../support/memory-storage.js';
import { invoiceDocument, invoiceSchema, makeService, ORG } from './fixtures.js';

/** Counts calls per document file name; fails the documents named in `failing`. */
function countingExtractor(failing = new Set<string>(), onCall?: (filename: string) => void) {
  const calls = new Map<string, number>();
  const extractor: Extractor = {
    name: 'counting',
    models: ['counting'],
    extract({ document }) {
      calls.set(document.filename, (calls.get(document.filename) ?? 0) + 1);
      onCall?.(document.filename);
      if (failing.has(document.filename)) return Promise.reject(new Error(`no answer for ${document.filename}`));
      return Promise.resolve({ data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) });
    },
  };
  return { extractor, calls };
}

async function queueService(failing?: Set<string>, options: { storage?: Storage; onCall?: (filename: string) => void } = {}) {
  const { extractor, calls } = countingExtractor(failing, options.onCall);
  let work!: JobWork;
  const idle: JobRunner = { enqueue: () => undefined, cancel: () => undefined, start: async () => undefined, close: async () => undefined };
  const docevals = makeService({
    extractors: [extractor],
    extraction: { retries: 0 },
    ...(options.storage ? { storage: options.storage } : {}),
    jobs: {
      runner: (given) => {
        work = given;
        return idle;
      },
    },
  });
  const evaluation = await docevals.evals.create(ORG, {
    name: 'queue',
    json_schema: invoiceSchema,
    default_inference_settings: { model: 'counting' },
    documents: [0, 1, 2].map((i) => invoiceDocument(`d${i}.json`, { total: i }, { total: i })),
  });
  const created = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
  const ref: IterationRef = { organization_id: ORG, evaluation_id: evaluation.id, iteration_id: created.id };
  const summary = () => docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: created.id, view: 'summary' });
  return { docevals, work, ref, calls, summary, evaluation };
}

const never = new AbortController().signal;

/**
 * Holds the save of the prediction `held.id` names (a group commit's `putMany` holding it) until `release()`: the
 * others are stored at once.
 */
function holdPut(storage: Storage) {
  const putMany = storage.predictions.putMany.bind(storage.predictions);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = { id: '' };
  storage.predictions.putMany = async (entries) => {
    if (entries.some((e) => e.record.id === held.id)) await released;
    return putMany(entries);
  };
  return { held, release };
}

describe('queue-mode job steps', () => {
  it('plan takes the job for the queue; each document runs once however often it is asked; finish writes the outcome once', async () => {
    const { docevals, work, ref, calls, summary } = await queueService();
    expect((await summary()).status).toBe('queued');
    const plan = (await work.plan(ref))!;
    expect(plan.document_ids).toHaveLength(3);
    expect(plan.model).toBe('counting');
    expect(await work.describe(ref)).toEqual({ job_id: plan.job_id, status: 'running', model: 'counting' });
    // A plan run again (its worker died) lists the same documents and changes nothing.
    expect((await work.plan(ref))!.document_ids).toEqual(plan.document_ids);
    const first = await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, never);
    expect(first).toEqual({ status: 'succeeded', error: null });
    // Again (a stalled job re-run): not called again, same outcome.
    expect(await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, never)).toEqual(first);
    expect(calls.get('d0.json')).toBe(1);
    // After a partial run, a re-plan lists only what the job has not written.
    expect((await work.plan(ref))!.document_ids).toEqual(plan.document_ids.slice(1));
    for (const id of plan.document_ids.slice(1)) await work.runDocument(ref, plan.job_id, id, never);
    expect(await work.finish(ref, plan.job_id)).toBe(true);
    expect(await work.finish(ref, plan.job_id)).toBe(false);
    const done = await summary();
    expect(done.status).toBe('completed');
    expect(done.progress).toEqual({ total: 3, succeeded: 3, failed: 0, pending: 0 });
    // Over: nothing runs any more.
    expect(await work.plan(ref)).toBeNull();
    expect((await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, never)).status).toBe('skipped');
    const events = [];
    for await (const event of docevals.evals.iterations.events(ORG, { evaluation_id: ref.evaluation_id, iteration_id: ref.iteration_id, last_event_id: `${plan.job_id}.x` })) events.push(event);
    expect(events.filter((e) => e.type === 'document')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'completed')).toHaveLength(1);
    await docevals.close();
  });

  it('every document failed: failed with the first stored error', async () => {
    const { docevals, work, ref, summary } = await queueService(new Set(['d0.json', 'd1.json', 'd2.json']));
    const plan = (await work.plan(ref))!;
    for (const id of plan.document_ids) expect((await work.runDocument(ref, plan.job_id, id, never)).status).toBe('failed');
    expect(await work.finish(ref, plan.job_id)).toBe(true);
    const done = await summary();
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/no answer for d\d\.json/);
    await docevals.close();
  });

  it('the queue holds the lease without expiry; after a cancel no document runs and finish changes nothing', async () => {
    const { docevals, work, ref, calls, summary, evaluation } = await queueService();
    const plan = (await work.plan(ref))!;
    const record = await docevals.evals.iterations.get(ORG, { evaluation_id: evaluation.id, iteration_id: ref.iteration_id, view: 'summary' });
    expect(record.status).toBe('running');
    await docevals.evals.iterations.cancel(ORG, { evaluation_id: evaluation.id, iteration_id: ref.iteration_id });
    expect(await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, never)).toEqual({ status: 'skipped', error: 'the job is not running' });
    expect(calls.size).toBe(0);
    expect(await work.finish(ref, plan.job_id)).toBe(false);
    expect((await summary()).status).toBe('cancelled');
    expect(QUEUE_LEASE_OWNER).toBe('queue');
    await docevals.close();
  });

  it('an aborted signal: nothing is called or saved', async () => {
    const { docevals, work, ref, calls, summary } = await queueService();
    const plan = (await work.plan(ref))!;
    const controller = new AbortController();
    controller.abort('cancelled');
    expect((await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, controller.signal)).status).toBe('skipped');
    expect(calls.size).toBe(0);
    expect((await summary()).progress.pending).toBe(3);
    await docevals.close();
  });

  it('plan places each pending document in the selection, the same places when planned again', async () => {
    const { work, ref } = await queueService();
    const plan = (await work.plan(ref))!;
    expect(plan.selected).toBe(3);
    expect(plan.document_positions).toEqual([0, 1, 2]);
    await work.runDocument(ref, plan.job_id, plan.document_ids[1]!, never);
    const again = (await work.plan(ref))!;
    expect(again.document_ids).toEqual([plan.document_ids[0], plan.document_ids[2]]);
    expect(again.document_positions).toEqual([0, 2]);
    expect(again.selected).toBe(3);
  });

  it('runDocuments: a batch one call at a time, the gate before each call, outcomes in order, each saved once', async () => {
    const { docevals, work, ref, calls, summary } = await queueService(new Set(['d2.json']));
    const plan = (await work.plan(ref))!;
    await work.runDocument(ref, plan.job_id, plan.document_ids[0]!, never);
    const gated: string[] = [];
    const seen: string[] = [];
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never, {
      beforeCall: async (id) => {
        gated.push(id);
        return true;
      },
      afterDocument: (id, outcome) => void seen.push(`${id}:${outcome.status}`),
    });
    // The first was written by this job before: no gate, no second call.
    expect(gated).toEqual(plan.document_ids.slice(1));
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    expect(outcomes[2]!.error).toContain('no answer for d2.json');
    expect([...calls.values()]).toEqual([1, 1, 1]);
    expect(seen.sort()).toEqual(plan.document_ids.map((id, i) => `${id}:${['succeeded', 'succeeded', 'failed'][i]}`).sort());
    expect((await summary()).progress).toMatchObject({ succeeded: 2, failed: 1, pending: 0 });
    await docevals.close();
  });

  it("runDocuments: the organization's key is read once for the job's batches in a process, not once per document", async () => {
    const storage = memoryStorage();
    let secretReads = 0;
    const jobs = new Proxy(storage.jobs, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (args[0] === SECRETS_SCOPE && /^get/.test(String(property))) secretReads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const received: Array<ExtractionRequest['credentials']> = [];
    const extractor: Extractor = {
      name: 'keyed',
      models: ['keyed'],
      credentials: () => ({ provider: 'OpenAI', host: false }),
      extract(request) {
        received.push(request.credentials);
        return Promise.resolve({ data: JSON.parse(Buffer.from(request.document.bytes).toString('utf8')) });
      },
    };
    let work!: JobWork;
    const idle: JobRunner = { enqueue: () => undefined, cancel: () => undefined, start: async () => undefined, close: async () => undefined };
    const docevals = makeService({
      storage: { ...storage, jobs },
      extractors: [extractor],
      secrets: { cipher: await aesGcmCipher([parseMasterKey(generateMasterKey())]) },
      jobs: { runner: (given) => ((work = given), idle) },
    });
    await docevals.secrets.externalApiKeys.create(ORG, { provider: 'OpenAI', api_key: 'sk-org' });
    const evaluation = await docevals.evals.create(ORG, {
      name: 'keyed',
      json_schema: invoiceSchema,
      default_inference_settings: { model: 'keyed' },
      documents: [0, 1, 2, 3, 4].map((i) => invoiceDocument(`d${i}.json`, { total: i }, { total: i })),
    });
    const created = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const ref: IterationRef = { organization_id: ORG, evaluation_id: evaluation.id, iteration_id: created.id };
    const plan = (await work.plan(ref))!;
    const before = secretReads;
    // Two batches of the job in this process: the key is read once for both (as the in-process runner's run).
    const first = await work.runDocuments(ref, plan.job_id, plan.document_ids.slice(0, 3), never);
    const second = await work.runDocuments(ref, plan.job_id, plan.document_ids.slice(3), never);
    expect([...first, ...second].map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(received).toEqual(plan.document_ids.map(() => ({ provider: 'OpenAI', api_key: 'sk-org' })));
    expect(secretReads - before).toBe(1);
    // A new job (its own run) reads the key again: a rotated key is used from there on.
    await docevals.secrets.externalApiKeys.create(ORG, { provider: 'OpenAI', api_key: 'sk-rotated' });
    const again = await docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, background: true });
    const ref2 = { ...ref, iteration_id: again.id };
    const plan2 = (await work.plan(ref2))!;
    const readsBefore = secretReads;
    received.length = 0;
    await work.runDocuments(ref2, plan2.job_id, plan2.document_ids.slice(0, 1), never);
    expect(secretReads - readsBefore).toBe(1);
    expect(received).toEqual([{ provider: 'OpenAI', api_key: 'sk-rotated' }]);
    // Rotated again: the job's next batch within 10 s still uses the key it read; one after them reads it again.
    await docevals.secrets.externalApiKeys.create(ORG, { provider: 'OpenAI', api_key: 'sk-later' });
    const readsThen = secretReads;
    received.length = 0;
    await work.runDocuments(ref2, plan2.job_id, plan2.document_ids.slice(1, 2), never);
    expect(secretReads - readsThen).toBe(0);
    const realNow = performance.now.bind(performance);
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + 10_001);
    try {
      await work.runDocuments(ref2, plan2.job_id, plan2.document_ids.slice(2, 3), never);
    } finally {
      clock.mockRestore();
    }
    expect(secretReads - readsThen).toBe(1);
    expect(received).toEqual([{ provider: 'OpenAI', api_key: 'sk-rotated' }, { provider: 'OpenAI', api_key: 'sk-later' }]);
    await docevals.close();
  });

  it('runDocuments: a gate that refuses (a cancelled job) skips the document without a call; the others run', async () => {
    const { docevals, work, ref, calls, summary } = await queueService();
    const plan = (await work.plan(ref))!;
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never, {
      beforeCall: async (id) => id !== plan.document_ids[1],
    });
    expect(outcomes).toEqual([
      { status: 'succeeded', error: null },
      { status: 'skipped', error: 'cancelled' },
      { status: 'succeeded', error: null },
    ]);
    expect(calls.get('d1.json')).toBeUndefined();
    expect((await summary()).progress).toMatchObject({ succeeded: 2, pending: 1 });
    await docevals.close();
  });

  it('runDocuments: a document\'s save goes on beside the next document\'s call (the next call does not wait for it)', async () => {
    // The first document's prediction is stored only once the second document's call has started: a batch that
    // waited for each save before the next call would never finish.
    const storage = memoryStorage();
    const { held: first, release: secondCalled } = holdPut(storage);
    const { docevals, work, ref, calls, summary } = await queueService(undefined, {
      storage,
      onCall: (filename) => void (filename === 'd1.json' && secondCalled()),
    });
    const plan = (await work.plan(ref))!;
    first.id = plan.document_ids[0]!;
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never);
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect([...calls.values()]).toEqual([1, 1, 1]);
    expect((await summary()).progress).toMatchObject({ succeeded: 3, pending: 0 });
    await docevals.close();
  }, 5_000);
  it('runDocuments: batches of one iteration running at once in a process save their predictions together', async () => {
    // d0's save is held; meanwhile a second batch calls d1 and d2: their saves wait for d0's write and then go
    // together, one putMany for both, and each batch still answers only once its predictions are stored.
    const storage = memoryStorage();
    const { held, release } = holdPut(storage);
    const sizes: number[] = [];
    const putMany = storage.predictions.putMany.bind(storage.predictions);
    storage.predictions.putMany = (entries) => (sizes.push(entries.length), putMany(entries));
    const { docevals, work, ref, calls, summary } = await queueService(undefined, { storage });
    const plan = (await work.plan(ref))!;
    const [d0, d1, d2] = plan.document_ids as [string, string, string];
    held.id = d0;
    const first = work.runDocuments(ref, plan.job_id, [d0], never);
    const second = work.runDocuments(ref, plan.job_id, [d1, d2], never);
    let secondOver = false;
    void second.then(() => (secondOver = true));
    while (calls.get('d2.json') !== 1) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 20));
    expect(secondOver).toBe(false);
    release();
    expect((await Promise.all([first, second])).flat().map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(sizes).toEqual([1, 2]);
    expect((await storage.predictions.getMany(ORG, ref.iteration_id, [d0, d1, d2])).map((p) => p?.value.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect((await summary()).progress).toMatchObject({ succeeded: 3, pending: 0 });
    await docevals.close();
  }, 5_000);

  it('runDocuments: documents edited or deleted during the batch are settled after its saves, in one read for the batch', async () => {
    // d0's prediction is stored only once d1's call has started; meanwhile d0's annotation is edited (its refresh
    // finds no prediction of d0 to refresh yet) and d2 is deleted (before its call): only the batch's settle, after
    // the saves, can bring d0's metrics to the new annotation and remove d2's prediction.
    const storage = memoryStorage();
    const { held, release: released } = holdPut(storage);
    const reads = { get: 0, getMany: 0 };
    const get = storage.documents.get.bind(storage.documents);
    const getMany = storage.documents.getMany.bind(storage.documents);
    storage.documents.get = (...args) => (reads.get++, get(...args));
    storage.documents.getMany = (...args) => (reads.getMany++, getMany(...args));
    const edited = { edit: () => Promise.resolve(), done: Promise.resolve() };
    const { docevals, work, ref, summary } = await queueService(undefined, {
      storage,
      onCall: (filename) => void (filename === 'd1.json' && (edited.done = edited.edit())),
    });
    const plan = (await work.plan(ref))!;
    const [d0, d1, d2] = plan.document_ids as [string, string, string];
    held.id = d0;
    const editReads = { get: 0, getMany: 0 };
    edited.edit = async () => {
      const at = { ...reads };
      await docevals.evals.documents.update(ORG, { evaluation_id: ref.evaluation_id, document_id: d0, annotation: { total: 99 } });
      await docevals.evals.documents.delete(ORG, { evaluation_id: ref.evaluation_id, document_id: d2 });
      Object.assign(editReads, { get: reads.get - at.get, getMany: reads.getMany - at.getMany });
      released();
    };
    const before = { ...reads };
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never);
    await edited.done;
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const stored = await storage.predictions.getMany(ORG, ref.iteration_id, [d0, d1, d2]);
    // d0 was extracted against { total: 0 } and saved with those metrics; settled against { total: 99 }.
    expect(stored[0]!.value.metrics.similarity).toBeLessThan(1);
    expect(stored[1]!.value.metrics.similarity).toBe(1);
    expect(stored[2]).toBeNull();
    // The batch's own document reads: its read and its settle, one each for the three documents, plus the refresh of
    // d0 and the removal of d2 (the edits' own reads aside).
    expect(reads.getMany - before.getMany - editReads.getMany).toBe(2);
    expect(reads.get - before.get - editReads.get).toBe(2);
    expect((await summary()).progress).toMatchObject({ succeeded: 2, pending: 0 });
    await docevals.close();
  }, 5_000);
  /** A memory store whose file reads are listed: a `getMany` as one entry of its ids, a `get` as its id. */
  function fileReadsOf(withGetMany: boolean) {
    const storage = memoryStorage();
    const fileReads: Array<string | string[]> = [];
    const { files } = storage;
    const getFile = files.get.bind(files);
    const getMany = files.getMany!.bind(files);
    files.get = (organizationId, fileId) => (fileReads.push(fileId), getFile(organizationId, fileId));
    // A host's own store without getMany: the service reads a file at a time.
    if (withGetMany) files.getMany = (organizationId, ids) => (fileReads.push([...ids]), getMany(organizationId, ids));
    else delete files.getMany;
    return { storage, fileReads };
  }
  it('runDocuments: a batch\'s files are read in one getMany, beside its records, before its first call', async () => {
    const { storage, fileReads } = fileReadsOf(true);
    const readAtCall = new Map<string, number>();
    const { docevals, work, ref } = await queueService(undefined, { storage, onCall: (filename) => void readAtCall.set(filename, fileReads.length) });
    const plan = (await work.plan(ref))!;
    fileReads.length = 0;
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never);
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(fileReads).toEqual([plan.document_ids]);
    expect(readAtCall.get('d0.json')).toBe(1);
    // A file that is gone is a storage error of the batch (a queue retries it), as a single read's is.
    const again = await docevals.evals.iterations.create(ORG, { evaluation_id: ref.evaluation_id, background: true });
    const ref2 = { ...ref, iteration_id: again.id };
    const plan2 = (await work.plan(ref2))!;
    await storage.files.releaseMany(ORG, [plan2.document_ids[1]!, plan2.document_ids[1]!]);
    expect(await storage.files.get(ORG, plan2.document_ids[1]!)).toBeNull();
    fileReads.length = 0;
    await expect(work.runDocuments(ref2, plan2.job_id, plan2.document_ids, never)).rejects.toMatchObject({ code: 'storage_error', message: expect.stringContaining(plan2.document_ids[1]!) });
    expect(fileReads).toEqual([plan2.document_ids]);
    await docevals.close();
  });
  it('runDocuments without getMany (a host\'s store): the next documents\' files are read while a call runs, and the gate is told the next document', async () => {
    const { storage, fileReads } = fileReadsOf(false);
    const readAtCall = new Map<string, number>();
    const { docevals, work, ref } = await queueService(undefined, {
      storage,
      onCall: (filename) => void readAtCall.set(filename, fileReads.length),
    });
    const plan = (await work.plan(ref))!;
    const told: Array<[string, string | undefined]> = [];
    fileReads.length = 0;
    const outcomes = await work.runDocuments(ref, plan.job_id, plan.document_ids, never, {
      beforeCall: async (id, next) => (told.push([id, next]), true),
    });
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    // Each file once, in order; when d0's call starts the next documents' files are being read already.
    expect(fileReads).toEqual(plan.document_ids);
    expect(readAtCall.get('d0.json')).toBe(3);
    const [d0, d1, d2] = plan.document_ids;
    expect(told).toEqual([[d0, d1], [d1, d2], [d2, undefined]]);
    await docevals.close();
  });
  it('plan: a job taken from queued lists its documents without reading predictions; a plan run again reads them', async () => {
    const storage = memoryStorage();
    let predictionReads = 0;
    const getMany = storage.predictions.getMany.bind(storage.predictions);
    storage.predictions.getMany = (...args) => (predictionReads++, getMany(...args));
    const { docevals, work, ref } = await queueService(undefined, { storage });
    const first = (await work.plan(ref))!;
    expect(first.document_ids).toHaveLength(3);
    expect(predictionReads).toBe(0);
    await work.runDocument(ref, first.job_id, first.document_ids[0]!, never);
    predictionReads = 0;
    // Planned again (its worker died): the document this job wrote is not listed.
    const again = (await work.plan(ref))!;
    expect(predictionReads).toBeGreaterThan(0);
    expect(again.document_ids).toEqual(first.document_ids.slice(1));
    await docevals.close();
  });
});
