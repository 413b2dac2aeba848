import { Buffer } from 'node:buffer';
/**
 * The standalone server as several app servers would run it: two instances on one Redis, or on one PostgreSQL,
 * over real sockets, and a model served by an OpenAI-compatible endpoint on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';
import { apiClient as api } from './support/api-client.js';
import { createStandaloneServer, type StandaloneServer } from '../src/app.js';

const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const text = (s: string) => `data:text/plain;base64,${Buffer.from(s).toString('base64')}`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(env: Record<string, string>): Promise<{ app: StandaloneServer; url: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'docevals-two-servers-'));
  // Servers sharing a store share the master key of organization secrets (each would generate its own otherwise, and
  // the second refuses to start: docs/secrets.md).
  const app = await createStandaloneServer(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, ...env },
    { log: () => {} },
  );
  const url = await app.listen();
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }), () => app.close(100));
  return { app, url };
}


describe('two standalone servers on one Redis', () => {
  it('lose none of each other\'s writes to one evaluation, made over HTTP at the same time', () =>
    writtenAtOnce({ REDIS_URL: inject('redisUrl') }));
});

describe('two standalone servers on one PostgreSQL', () => {
  it('lose none of each other\'s writes to one evaluation, made over HTTP at the same time', () =>
    writtenAtOnce({ DATABASE_URL: inject('databaseUrl') }));
});

/**
 * Two servers on the store `storeEnv` names, written to at once over HTTP: annotation edits, renames, added
 * documents and iterations. Both read back every write, and metrics consistent with the final annotations.
 */
async function writtenAtOnce(storeEnv: Record<string, string>): Promise<void> {
  {
    const organization = `org_two_${Date.now().toString(36)}`;
    const env = { ...storeEnv, DOCEVALS_API_KEYS: `shared-key:${organization}` };
    const [a, b] = [api((await server(env)).url, 'shared-key'), api((await server(env)).url, 'shared-key')];
    const via = (i: number) => (i % 2 === 0 ? a : b);

    const documents = Array.from({ length: 8 }, (_, i) => ({
      mime_data: { filename: `inv-${i}.txt`, url: text(`Invoice number: INV-${i}\nTotal: ${i + 1}\n`) },
      annotation: { invoice_number: `INV-${i}`, total: 0 },
    }));
    const created = await a('POST', '/v1/evals', {
      name: 'shared',
      json_schema: SCHEMA,
      documents,
      default_inference_settings: { model: 'local-rules' },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    cleanups.push(() => a('DELETE', `/v1/evals/${id}`));

    const responses = await Promise.all([
      ...created.body.documents.map((d: { id: string }, i: number) =>
        via(i)('PUT', `/v1/evals/${id}/documents/${d.id}`, { annotation: { invoice_number: `INV-${i}`, total: i + 1 } }),
      ),
      ...Array.from({ length: 4 }, (_, i) => via(i)('PATCH', `/v1/evals/${id}`, { name: `renamed-${i}` })),
      ...Array.from({ length: 4 }, (_, i) =>
        via(i + 1)('POST', `/v1/evals/${id}/documents`, {
          mime_data: { filename: `late-${i}.txt`, url: text(`Invoice number: LATE-${i}\n`) },
          annotation: { invoice_number: `LATE-${i}` },
        }),
      ),
      ...Array.from({ length: 4 }, (_, i) => via(i)('POST', `/v1/evals/${id}/iterations/create`, {})),
    ]);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));

    for (const read of [a, b]) {
      const final = (await read('GET', `/v1/evals/${id}`)).body;
      expect(final.documents).toHaveLength(12);
      created.body.documents.forEach((d: { id: string }, i: number) => {
        expect(final.documents.find((x: { id: string }) => x.id === d.id).annotation).toEqual({ invoice_number: `INV-${i}`, total: i + 1 });
      });
      expect(final.name).toMatch(/^renamed-[0-3]$/);
      expect(final.iterations).toHaveLength(4);
      for (const iteration of final.iterations) {
        // The annotations now match the documents, so every original document scores 1 in every iteration that
        // read it; metrics describe the final annotations whatever order the writes landed in.
        const originals = iteration.metric_results.item_metrics.filter((m: { id: string }) =>
          created.body.documents.some((d: { id: string }) => d.id === m.id),
        );
        expect(originals.map((m: { similarity: number }) => m.similarity)).toEqual(originals.map(() => 1));
      }
    }
  }
}

describe('a model served through an OpenAI-compatible endpoint', () => {
  it('runs an iteration over HTTP against the endpoint, local-rules keeping its own model', async () => {
    const fake = await new FakeOpenAIServer().start();
    cleanups.push(() => fake.stop());
    fake.handle = () => ({ body: completion({ invoice_number: 'INV-9', total: 9 }, { model: 'gpt-4o-mini' }) });
    const { url } = await server({ DOCEVALS_API_KEYS: 'k:org_llm', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL });
    const call = api(url, 'k');
    const evaluation = await call('POST', '/v1/evals', {
      name: 'llm',
      json_schema: SCHEMA,
      documents: [{ mime_data: { filename: 'a.txt', url: text('Invoice number: INV-9\nTotal: 9\n') }, annotation: { invoice_number: 'INV-9', total: 9 } }],
    });
    const viaLlm = await call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, {
      inference_settings: { model: 'gpt-4o-mini', modality: 'text' },
    });
    expect(viaLlm.status).toBe(200);
    expect(viaLlm.body.predictions[0].prediction).toEqual({ invoice_number: 'INV-9', total: 9 });
    expect(viaLlm.body.predictions[0].metadata.api_cost).toMatchObject({ currency: 'USD' });
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!.body;
    expect(request.model).toBe('gpt-4o-mini');
    expect(request.response_format.type).toBe('json_schema');
    expect(JSON.stringify(request.messages)).toContain('Invoice number: INV-9');

    const viaRules = await call('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, {
      inference_settings: { model: 'local-rules' },
    });
    expect(viaRules.body.metric_results.mean_similarity).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });
});
