import { aesGcmCipher, createDocevals, generateMasterKey, parseMasterKey, type JsonObject } from '@docevals/core';
import { memoryStorage } from '@docevals/core/storage-kit';
import { providersExtractor } from '@docevals/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiError, completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

const schema: JsonObject = { type: 'object', properties: { total: { type: ['number', 'null'] } }, required: ['total'], additionalProperties: false };
const evaluation = {
  name: 'Invoices',
  json_schema: schema,
  documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Total: 42').toString('base64')}` }, annotation: { total: 42 } }],
};

const serverA = new FakeOpenAIServer();
const serverB = new FakeOpenAIServer();
const provider = new FakeOpenAIServer();
beforeAll(() => Promise.all([serverA.start(), serverB.start(), provider.start()]));
afterAll(() => Promise.all([serverA.stop(), serverB.stop(), provider.stop()]));
beforeEach(() => {
  for (const s of [serverA, serverB, provider]) {
    s.reset();
    s.handle = () => ({ body: completion({ total: 42 }) });
  }
});

async function service(options: Parameters<typeof providersExtractor>[0] = {}) {
  return createDocevals({
    storage: memoryStorage(),
    extractors: [providersExtractor({ ...options, openai: { logprobs: false } })],
    extraction: { retries: 0 },
    secrets: { cipher: await aesGcmCipher([parseMasterKey(generateMasterKey())]) },
  });
}

describe('providersExtractor', () => {
  it("names each model's provider as the OpenTelemetry conventions do (gen_ai.provider.name), not its own name", () => {
    const extractor = providersExtractor();
    expect(extractor.name).toBe('providers');
    const names = ['gpt-4o-mini', 'o4-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'grok-4', 'custom/llama3.1', 'local-rules'].map((m) => extractor.providerName?.(m));
    expect(names).toEqual(['openai', 'openai', 'anthropic', 'gcp.gemini', 'x_ai', 'custom', undefined]);
  });

  it("runs each organization's iteration on its own custom endpoint with its own key, never the other's", async () => {
    const docevals = await service();
    await docevals.secrets.customEndpoint.set('org_a', { base_url: serverA.baseURL, api_key: 'key-of-org-a', models: ['llama3.1'] });
    await docevals.secrets.customEndpoint.set('org_b', { base_url: serverB.baseURL, api_key: 'key-of-org-b', models: ['qwen3'] });
    const a = await docevals.evals.create('org_a', evaluation);
    const b = await docevals.evals.create('org_b', evaluation);
    const runA = await docevals.evals.iterations.create('org_a', { evaluation_id: a.id, inference_settings: { model: 'custom/llama3.1' } });
    const runB = await docevals.evals.iterations.create('org_b', { evaluation_id: b.id, inference_settings: { model: 'custom/qwen3' } });
    expect(runA.metric_results.mean_similarity).toBe(1);
    expect(runB.metric_results.mean_similarity).toBe(1);
    expect(serverA.requests.map((r) => [r.headers.authorization, r.body.model])).toEqual([['Bearer key-of-org-a', 'llama3.1']]);
    expect(serverB.requests.map((r) => [r.headers.authorization, r.body.model])).toEqual([['Bearer key-of-org-b', 'qwen3']]);
    expect((await docevals.listModels('org_a')).data.filter((m) => m.provider === 'custom').map((m) => m.id)).toEqual(['custom/llama3.1']);
    expect(await docevals.secrets.customEndpoint.get('org_b')).toMatchObject({ is_configured: true, base_url: serverB.baseURL, models: ['qwen3'], has_api_key: true });
    expect(JSON.stringify(await docevals.secrets.customEndpoint.get('org_b'))).not.toContain('key-of-org-b');
  });

  it("sends a provider's model with the organization's key, the host's key otherwise, and scrubs a refused key from errors", async () => {
    const docevals = await service({ baseURLs: { Anthropic: provider.baseURL, OpenAI: provider.baseURL }, hostKeys: { OpenAI: { apiKey: 'host-openai-key' } } });
    const one = await docevals.evals.create('org_a', evaluation);
    await docevals.secrets.externalApiKeys.create('org_a', { provider: 'Anthropic', api_key: 'sk-ant-org-a-0123456789' });
    await docevals.evals.iterations.create('org_a', { evaluation_id: one.id, inference_settings: { model: 'claude-sonnet-4-5' } });
    await docevals.evals.iterations.create('org_a', { evaluation_id: one.id, inference_settings: { model: 'gpt-4o-mini' } });
    expect(provider.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
      ['claude-sonnet-4-5', 'Bearer sk-ant-org-a-0123456789'],
      ['gpt-4o-mini', 'Bearer host-openai-key'],
    ]);
    // Priced from the published table.
    const [claude] = (await docevals.evals.iterations.list('org_a', { evaluation_id: one.id })).data;
    expect(claude!.predictions[0]!.metadata!.api_cost!.value).toBeCloseTo((100 * 3 + 20 * 15) / 1e6, 12);

    provider.handle = () => apiError(401, 'Incorrect API key provided: sk-ant-org-a-0123456789.');
    const failed = await docevals.evals.iterations
      .create('org_a', { evaluation_id: one.id, inference_settings: { model: 'claude-haiku-4-5' } })
      .catch((error: unknown) => error);
    const text = JSON.stringify(failed) + String((failed as Error).message);
    expect(text).not.toContain('sk-ant-org-a-0123456789');
    const stored = await docevals.evals.iterations.list('org_a', { evaluation_id: one.id });
    expect(JSON.stringify(stored)).not.toContain('sk-ant-org-a-0123456789');
    expect(JSON.stringify(stored)).toContain('[redacted]');
  });

  it('a custom model without a custom endpoint, or a provider without any key, is a 422 before any call', async () => {
    const docevals = await service();
    const one = await docevals.evals.create('org_a', evaluation);
    for (const model of ['custom/llama3.1', 'gemini-2.5-flash', 'grok-4']) {
      const error = await docevals.evals.iterations.create('org_a', { evaluation_id: one.id, inference_settings: { model } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'validation_error' });
    }
    expect(serverA.requests.length + serverB.requests.length + provider.requests.length).toBe(0);
  });
});
