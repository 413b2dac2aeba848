import { describe, expect, it } from 'vitest';
import {
  aesGcmCipher,
  createDocevals,
  DocevalsError,
  generateMasterKey,
  parseMasterKey,
  SECRETS_SCOPE,
  type Extractor,
  type ExtractionRequest,
} from '../../src/internal.js';
import { memoryStorage } from '../support/memory-storage.js';

const keyA = parseMasterKey(generateMasterKey());
const keyB = parseMasterKey(generateMasterKey());

/** An extractor that needs the Anthropic key for `claude-*` and records the credentials each call received. */
function recordingExtractor(host: boolean) {
  const calls: Array<ExtractionRequest['credentials']> = [];
  const extractor: Extractor = {
    name: 'providers',
    models: ['claude-*'],
    credentials: (model) => (model.startsWith('claude-') ? { provider: 'Anthropic', host } : null),
    async extract(request) {
      calls.push(request.credentials);
      return { data: { total: 1 } };
    },
  };
  return { extractor, calls };
}

const evaluation = {
  name: 'e',
  json_schema: { type: 'object', properties: { total: { type: 'number' } } },
  documents: [{ mime_data: { filename: 'a.txt', url: 'data:text/plain;base64,VG90YWw6IDE=' }, annotation: { total: 1 } }],
};

describe('aesGcmCipher', () => {
  it('seals with a fresh IV, opens with the same context only, and names the key a wrong key needs', async () => {
    const cipher = await aesGcmCipher([keyA]);
    const one = await cipher.encrypt('sk-secret', 'org_1/OpenAI');
    const two = await cipher.encrypt('sk-secret', 'org_1/OpenAI');
    expect(one).not.toBe(two);
    expect(one).not.toContain('sk-secret');
    expect(await cipher.decrypt(one, 'org_1/OpenAI')).toEqual({ plaintext: 'sk-secret', stale: false });
    await expect(cipher.decrypt(one, 'org_2/OpenAI')).rejects.toThrow(/altered or moved/);
    const other = await aesGcmCipher([keyB]);
    await expect(other.decrypt(one, 'org_1/OpenAI')).rejects.toThrow(new RegExp(`master key ${cipher.keyId}`));
    const rotating = await aesGcmCipher([keyB, keyA]);
    expect(await rotating.decrypt(one, 'org_1/OpenAI')).toEqual({ plaintext: 'sk-secret', stale: true });
  });

  it('refuses a master key that is not 32 bytes', () => {
    expect(() => parseMasterKey('short', 'DOCEVALS_SECRETS_KEY')).toThrow(/DOCEVALS_SECRETS_KEY must be 32 random bytes/);
    expect(parseMasterKey('00'.repeat(32))).toHaveLength(32);
  });
});

describe('organization secrets', () => {
  it('answers not_configured without a cipher, and stores nothing', async () => {
    const storage = memoryStorage();
    const docevals = createDocevals({ storage });
    const error = await docevals.secrets.externalApiKeys.create('org_1', { provider: 'OpenAI', api_key: 'sk-x' }).catch((e) => e);
    expect(error).toBeInstanceOf(DocevalsError);
    expect(error.code).toBe('not_configured');
    expect(error.message).toMatch(/DOCEVALS_SECRETS_KEY/);
    await expect(docevals.secrets.externalApiKeys.list('org_1')).rejects.toMatchObject({ code: 'not_configured' });
    expect((await storage.jobs.list(SECRETS_SCOPE, { limit: 10, order: 'asc' }))!.items).toEqual([]);
  });

  it('stores a key sealed, lists providers without keys, replaces and deletes', async () => {
    const storage = memoryStorage();
    const docevals = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyA]) } });
    const created = await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-123456' });
    expect(created).toMatchObject({ provider: 'Anthropic', is_configured: true });
    const list = await docevals.secrets.externalApiKeys.list('org_1');
    expect(list.map((k) => [k.provider, k.is_configured])).toEqual([['OpenAI', false], ['Anthropic', true], ['Gemini', false], ['xAI', false]]);
    expect(JSON.stringify(list)).not.toContain('sk-ant');
    expect(await docevals.secrets.externalApiKeys.get('org_2', { provider: 'Anthropic' })).toEqual({ provider: 'Anthropic', is_configured: false, last_updated: null });
    const raw = JSON.stringify((await storage.jobs.list(SECRETS_SCOPE, { limit: 10, order: 'asc' }))!.items);
    expect(raw).not.toContain('sk-ant-123456');
    await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-654321' });
    expect((await storage.jobs.list(SECRETS_SCOPE, { limit: 10, order: 'asc' }))!.items).toHaveLength(1);
    expect(await docevals.secrets.externalApiKeys.delete('org_1', { provider: 'Anthropic' })).toEqual({ provider: 'Anthropic', deleted: true, success: true });
    expect(await docevals.secrets.externalApiKeys.delete('org_1', { provider: 'Anthropic' })).toMatchObject({ deleted: false });
    await expect(docevals.secrets.externalApiKeys.create('org_1', { provider: 'Mistral' as 'OpenAI', api_key: 'k' })).rejects.toMatchObject({ code: 'validation_error' });
    await expect(docevals.secrets.externalApiKeys.list(SECRETS_SCOPE)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it("runs an iteration with the running organization's key; none and no host key is a 422 naming the provider", async () => {
    const { extractor, calls } = recordingExtractor(false);
    const docevals = createDocevals({ storage: memoryStorage(), extractors: [extractor], secrets: { cipher: await aesGcmCipher([keyA]) } });
    const one = await docevals.evals.create('org_1', evaluation);
    const two = await docevals.evals.create('org_2', evaluation);
    await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-org1' });
    await docevals.evals.iterations.create('org_1', { evaluation_id: one.id, inference_settings: { model: 'claude-sonnet-4-5' } });
    expect(calls).toEqual([{ provider: 'Anthropic', api_key: 'sk-ant-org1' }]);
    const error = await docevals.evals.iterations
      .create('org_2', { evaluation_id: two.id, inference_settings: { model: 'claude-sonnet-4-5' } })
      .catch((e) => e);
    expect(error.code).toBe('validation_error');
    expect(error.message).toMatch(/runs on Anthropic.*POST \/v1\/secrets\/external_api_keys/);
    expect(calls).toHaveLength(1);
    expect((await docevals.evals.get('org_2', { evaluation_id: two.id })).iterations).toEqual([]);
  });

  it("uses the host's key when the organization has none, and lists per organization what it can run", async () => {
    const { extractor, calls } = recordingExtractor(true);
    const docevals = createDocevals({ storage: memoryStorage(), extractors: [extractor], secrets: { cipher: await aesGcmCipher([keyA]) } });
    const one = await docevals.evals.create('org_1', evaluation);
    await docevals.evals.iterations.create('org_1', { evaluation_id: one.id, inference_settings: { model: 'claude-haiku-4-5' } });
    expect(calls).toEqual([undefined]);
    const models = await docevals.listModels('org_1');
    expect(models.data.filter((m) => m.provider === 'Anthropic').map((m) => m.id)).toContain('claude-sonnet-4-5');
  });

  it('lists a provider\'s models only once the organization adds its key', async () => {
    const { extractor } = recordingExtractor(false);
    const docevals = createDocevals({ storage: memoryStorage(), extractors: [extractor], secrets: { cipher: await aesGcmCipher([keyA]) } });
    expect((await docevals.listModels('org_1')).data).toEqual([]);
    await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-org1' });
    const ids = (await docevals.listModels('org_1')).data.map((m) => m.id);
    expect(ids).toEqual(['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-*']);
    expect((await docevals.listModels('org_2')).data).toEqual([]);
  });

  it('checks the master key at start: a wrong key is a clear error; the previous key re-encrypts everything', async () => {
    const storage = memoryStorage();
    const first = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyA]) } });
    expect((await first.secrets.check()).reencrypted).toBe(0);
    await first.secrets.externalApiKeys.create('org_1', { provider: 'OpenAI', api_key: 'sk-openai-1' });
    await first.secrets.externalApiKeys.create('org_2', { provider: 'xAI', api_key: 'xai-2' });

    const wrong = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyB]) } });
    await expect(wrong.secrets.check()).rejects.toThrow(/encrypted with the master key [0-9a-f]{12}, which is not configured/);

    const rotating = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyB, keyA]) } });
    expect(await rotating.secrets.check()).toMatchObject({ reencrypted: 3 });
    const after = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyB]) } });
    expect((await after.secrets.check()).reencrypted).toBe(0);
    const { extractor, calls } = recordingExtractor(false);
    const run = createDocevals({ storage, extractors: [extractor], secrets: { cipher: await aesGcmCipher([keyB]) } });
    await run.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-again' });
    const e = await run.evals.create('org_1', evaluation);
    await run.evals.iterations.create('org_1', { evaluation_id: e.id, inference_settings: { model: 'claude-x' } });
    expect(calls[0]).toEqual({ provider: 'Anthropic', api_key: 'sk-ant-again' });
  });

  it('a rotation cut short (a failed write) is finished at the next check: the check record is re-sealed last', async () => {
    const storage = memoryStorage();
    const first = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyA]) } });
    await first.secrets.check();
    await first.secrets.externalApiKeys.create('org_1', { provider: 'OpenAI', api_key: 'sk-openai-1' });
    await first.secrets.externalApiKeys.create('org_2', { provider: 'xAI', api_key: 'xai-2' });
    // The rotation's second write fails.
    let replaces = 0;
    const jobs = new Proxy(storage.jobs, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (property === 'replace') {
          return (...args: Parameters<typeof target.replace>) => (++replaces === 2 ? Promise.reject(new Error('EIO')) : target.replace(...args));
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const cut = createDocevals({ storage: { ...storage, jobs }, secrets: { cipher: await aesGcmCipher([keyB, keyA]) } });
    await expect(cut.secrets.check()).rejects.toThrow('EIO');
    const again = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([keyB, keyA]) } });
    expect((await again.secrets.check()).reencrypted).toBeGreaterThanOrEqual(2);
    const current = (await aesGcmCipher([keyB])).keyId;
    const stored = (await storage.jobs.list(SECRETS_SCOPE, { limit: 100, order: 'asc' }))!;
    expect(stored.items.map((record) => (record as unknown as { key_id: string }).key_id)).toEqual(stored.items.map(() => current));
  });
});
