/**
 * The service's own read-modify-writes on each real storage: two docevals "servers" (two service instances, and
 * for Redis two separate connections, as two app servers would have) work on one evaluation at the same time.
 * Nothing either of them wrote may be lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { createDocevals, type Docevals, type Extractor, type Storage } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { memoryStorage } from '@docevals/adapters/memory';
import { redisStorage } from '@docevals/adapters/redis';
import { postgresStorage } from '@docevals/adapters/postgres';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

const ORG = 'org_concurrency';
const schema = { type: 'object', properties: { total: { type: 'number' }, n: { type: 'number' } } };
const dataUrl = (value: object) => `data:application/json;base64,${Buffer.from(JSON.stringify(value)).toString('base64')}`;

/** Reads the JSON documents back as predictions, after a short pause so that writes really interleave. */
const jsonExtractor: Extractor = {
  name: 'json-file',
  models: ['json-file'],
  async extract({ document }) {
    await new Promise((r) => setTimeout(r, 2 + Math.random() * 5));
    return { data: JSON.parse(Buffer.from(document.bytes).toString('utf8')) };
  },
};

type Options = Partial<Parameters<typeof createDocevals>[0]>;
const service = (storage: Storage, options: Options = {}) => createDocevals({ storage, extractors: [jsonExtractor], ...options });

const redisPrefix = uniqueKeyPrefix('service');
const postgresSchema = `t_service_${process.pid}_${Date.now().toString(36)}`;
const folders: string[] = [];
afterAll(async () => {
  const admin = new Redis(inject('redisUrl'));
  await deleteKeys(admin, redisPrefix);
  await admin.quit();
  const pg = new Pool({ connectionString: inject('databaseUrl'), max: 1 });
  await pg.query(`DROP SCHEMA IF EXISTS "${postgresSchema}" CASCADE`);
  await pg.end();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Two services over one store: [first, second, close]. */
const setups: Record<string, (options?: Options) => [Docevals, Docevals, () => Promise<void>]> = {
  memory: (options) => {
    const storage = memoryStorage();
    return [service(storage, options), service(storage, options), () => storage.close()];
  },
  lowdb: (options) => {
    const dir = mkdtempSync(join(tmpdir(), 'docevals-service-'));
    folders.push(dir);
    // lowdb allows one process per folder: two services in this process share the one storage.
    const storage = lowdbStorage({ dir });
    return [service(storage, options), service(storage, options), () => storage.close()];
  },
  redis: (options) => {
    const url = inject('redisUrl');
    const a = redisStorage({ url, keyPrefix: redisPrefix });
    const b = redisStorage({ url, keyPrefix: redisPrefix });
    return [service(a, options), service(b, options), async () => void (await Promise.all([a.close(), b.close()]))];
  },
  postgres: (options) => {
    // Two pools, as two app servers would have.
    const url = inject('databaseUrl');
    const a = postgresStorage({ connectionString: url, schema: postgresSchema });
    const b = postgresStorage({ connectionString: url, schema: postgresSchema });
    return [service(a, options), service(b, options), async () => void (await Promise.all([a.close(), b.close()]))];
  },
};

for (const [name, setup] of Object.entries(setups)) {
  describe(`two services on one ${name} store`, () => {
    it('lose none of each other\'s annotation edits, renames, document additions and iterations', async () => {
      const [one, two, close] = setup();
      try {
        const documents = Array.from({ length: 10 }, (_, i) => ({
          mime_data: { filename: `d${i}.json`, url: dataUrl({ n: i + 1 }) },
          annotation: { total: 0 },
        }));
        const evaluation = await one.evals.create(ORG, {
          name: 'shared',
          json_schema: schema,
          default_inference_settings: { model: 'json-file' },
          documents,
        });
        const pick = (i: number) => (i % 2 === 0 ? one : two);
        const evaluation_id = evaluation.id;
        await Promise.all([
          ...evaluation.documents.map((d, i) =>
            pick(i).evals.documents.update(ORG, { evaluation_id, document_id: d.id, annotation: { total: i + 100 } }),
          ),
          ...Array.from({ length: 6 }, (_, i) => pick(i).evals.update(ORG, { evaluation_id, name: `name-${i}` })),
          ...Array.from({ length: 6 }, (_, i) =>
            pick(i + 1).evals.documents.add(ORG, {
              evaluation_id,
              mime_data: { filename: `new${i}.json`, url: dataUrl({ m: i }) },
              annotation: { m: i },
            }),
          ),
          ...Array.from({ length: 6 }, (_, i) => pick(i).evals.iterations.create(ORG, { evaluation_id })),
        ]);

        // Either service sees the same, complete result.
        for (const reader of [one, two]) {
          const final = await reader.evals.get(ORG, { evaluation_id });
          expect(final.documents).toHaveLength(16);
          evaluation.documents.forEach((d, i) => {
            expect(final.documents.find((x) => x.id === d.id)!.annotation).toEqual({ total: i + 100 });
          });
          expect(final.name).toMatch(/^name-[0-5]$/);
          expect(final.iterations).toHaveLength(6);
          for (const iteration of final.iterations) {
            expect(iteration.predictions).toHaveLength(16);
            // Metrics describe the final annotations: document 0 predicted {n: 1} against {total: 100} scores 0.
            const first = iteration.metric_results.item_metrics.find((m) => m.id === evaluation.documents[0]!.id)!;
            expect(first.flat_similarities).toEqual({ total: 0, n: 0 });
          }
        }
      } finally {
        await close();
      }
    });

    it('an import of 300 annotations (two batches) on one and single edits on the other: totals follow the final annotations', async () => {
      const [one, two, close] = setup();
      try {
        const n = 300;
        const evaluation = await one.evals.create(ORG, {
          name: 'import',
          json_schema: schema,
          default_inference_settings: { model: 'json-file' },
          documents: Array.from({ length: n }, (_, i) => ({ mime_data: { filename: `i${i}.json`, url: dataUrl({ n: i }) }, annotation: { total: i } })),
          iterations: [0, 1].map((k) => ({
            inference_settings: { model: `model-${k}` },
            predictions: Array.from({ length: n }, (_, i) => ({ prediction: { total: i + k } })),
          })),
        });
        const evaluation_id = evaluation.id;
        const ids = evaluation.documents.map((d) => d.id);
        const content = ids.map((id, i) => JSON.stringify({ document_id: id, annotation: { total: i + 1000 } })).join('\n');
        const edited = ids.filter((_, i) => i % 10 === 3);
        const [result] = await Promise.all([
          one.evals.documents.import(ORG, { evaluation_id, format: 'jsonl', content }),
          ...edited.map((document_id, k) => two.evals.documents.update(ORG, { evaluation_id, document_id, annotation: { total: k % 2 } })),
        ]);
        expect(result.updated).toBe(n);
        expect(result.refused).toBe(0);
        const documents = (await two.evals.get(ORG, { evaluation_id })).documents;
        documents.forEach((d, i) => {
          if (edited.includes(d.id)) expect([{ total: i + 1000 }, { total: edited.indexOf(d.id) % 2 }]).toContainEqual(d.annotation);
          else expect(d.annotation).toEqual({ total: i + 1000 });
        });
        for (const iteration of evaluation.iterations) {
          const ref = { evaluation_id, iteration_id: iteration.id };
          // The summary's mean comes from the predictions' running totals; the full view computes each document's
          // metrics against its current annotation. They agree only if every refresh landed and totals are exact.
          const summary = await one.evals.iterations.get(ORG, { ...ref, view: 'summary' });
          const full = await two.evals.iterations.get(ORG, ref);
          if (!('item_metrics' in full.metric_results)) throw new Error('full view expected');
          const items = full.metric_results.item_metrics;
          const recomputed = items.reduce((sum, m) => sum + m.similarity, 0) / items.length;
          expect(summary.metric_results.mean_similarity).toBeCloseTo(recomputed, 9);
          expect(recomputed).toBeLessThan(1);
        }
      } finally {
        await close();
      }
    }, 60_000);

    it('hold the cap on active iterations per organization: of 12 starts at once through both, exactly 3 are kept', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const held: Extractor = { name: 'held', models: ['held'], extract: async () => (await gate, { data: { total: 1 } }) };
      const [one, two, close] = setup({ extractors: [held], jobs: { maxIterationsPerOrganization: 3 } });
      let evaluationId: string | undefined;
      try {
        const evaluation = await one.evals.create(ORG, {
          name: 'capped',
          json_schema: schema,
          default_inference_settings: { model: 'held' },
          documents: [{ mime_data: { filename: 'a.json', url: dataUrl({ total: 1 }) }, annotation: { total: 1 } }],
        });
        const evaluation_id = (evaluationId = evaluation.id);
        const starts = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).evals.iterations.create(ORG, { evaluation_id, background: true })),
        );
        const kept = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value.id] : []));
        const refused = starts.flatMap((s) => (s.status === 'rejected' ? [s.reason as { code?: string }] : []));
        expect(kept).toHaveLength(3);
        expect(refused.map((e) => e.code)).toEqual(Array(9).fill('rate_limited'));
        // A refused start leaves nothing: the evaluation lists exactly the kept ones.
        const listed = await two.evals.iterations.list(ORG, { evaluation_id, view: 'summary' });
        expect(listed.data.map((it) => it.id).sort()).toEqual([...kept].sort());
        // Deleting one (queued or running) frees its place at once.
        await one.evals.iterations.delete(ORG, { evaluation_id, iteration_id: kept[0]! });
        await two.evals.iterations.create(ORG, { evaluation_id, background: true });
        await expect(one.evals.iterations.create(ORG, { evaluation_id, background: true })).rejects.toMatchObject({ code: 'rate_limited' });
      } finally {
        release();
        // The held jobs end before the store closes under them.
        for (let i = 0; i < 400 && evaluationId; i++) {
          const { data } = await one.evals.iterations.list(ORG, { evaluation_id: evaluationId, view: 'summary' });
          if (data.every((it) => it.status !== 'queued' && it.status !== 'running')) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await Promise.all([one.close(), two.close()]);
        await close();
      }
    });

    it('keep every iteration of 20 created at once through both services', async () => {
      const [one, two, close] = setup();
      try {
        const evaluation = await one.evals.create(ORG, {
          name: 'iterations',
          json_schema: schema,
          default_inference_settings: { model: 'json-file' },
          documents: [{ mime_data: { filename: 'a.json', url: dataUrl({ total: 1 }) }, annotation: { total: 1 } }],
        });
        const created = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? one : two).evals.iterations.create(ORG, { evaluation_id: evaluation.id }),
          ),
        );
        const listed = await two.evals.iterations.list(ORG, { evaluation_id: evaluation.id });
        expect(new Set(listed.data.map((it) => it.id))).toEqual(new Set(created.map((it) => it.id)));
      } finally {
        await close();
      }
    });
  });
}
