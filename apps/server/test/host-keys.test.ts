import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateMasterKey } from '@docevals/core';
import { loadSecretsKey } from '../src/secrets-key.js';
import { apiClient } from './support/api-client.js';
import { standaloneServers } from './support/standalone-servers.js';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

// docs/secrets.md's promises on the host's own keys, held against the standalone server as it reads its environment.

const EVALUATION = {
  name: 'Invoices',
  json_schema: { type: 'object', properties: { total: { type: ['number', 'null'] } }, required: ['total'], additionalProperties: false },
  documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Total: 42').toString('base64')}` }, annotation: { total: 42 } }],
};

const servers = standaloneServers('docevals-host-keys-');
const gateway = new FakeOpenAIServer();
const custom = new FakeOpenAIServer();
beforeAll(() => Promise.all([gateway.start(), custom.start()]));
afterAll(() => Promise.all([gateway.stop(), custom.stop()]));
beforeEach(() => {
  for (const server of [gateway, custom]) {
    server.reset();
    server.handle = () => ({ body: completion({ total: 42 }) });
  }
});

async function start(env: Record<string, string>) {
  const { url } = await servers.start({ DOCEVALS_API_KEYS: 'key-a:org_a', ...env });
  return apiClient(url, 'key-a');
}

describe("the host's provider keys", () => {
  it('serves Anthropic, Gemini and xAI models from their variables, each listed under its provider', async () => {
    const call = await start({ ANTHROPIC_API_KEY: 'host-ant', GEMINI_API_KEY: 'host-gem', XAI_API_KEY: 'host-xai' });
    const models = (await call('GET', '/v1/models')).body.data as Array<{ id: string; provider?: string }>;
    const providers = new Set(models.map((model) => model.provider));
    expect([...providers].filter((p) => p !== undefined && p !== 'local')).toEqual(expect.arrayContaining(['Anthropic', 'Gemini', 'xAI']));
    expect(providers.has('OpenAI')).toBe(false);
    expect(models.find((model) => model.id.startsWith('claude-'))?.provider).toBe('Anthropic');
    expect(models.find((model) => model.id.startsWith('grok-'))?.provider).toBe('xAI');
  });

  it("a gateway (OPENAI_BASE_URL) serves every provider the host has no own key for, with the gateway's key", async () => {
    const call = await start({ OPENAI_BASE_URL: gateway.baseURL, OPENAI_API_KEY: 'gateway-key' });
    const evaluation = (await call('POST', '/v1/evals', EVALUATION)).body;
    for (const model of ['gemini-2.5-flash', 'grok-4', 'claude-sonnet-4-5']) {
      const run = await call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { inference_settings: { model } });
      expect(run.status).toBe(200);
    }
    expect(gateway.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
      ['gemini-2.5-flash', 'Bearer gateway-key'],
      ['grok-4', 'Bearer gateway-key'],
      ['claude-sonnet-4-5', 'Bearer gateway-key'],
    ]);
  });

  it("never sends the host's key to an organization's custom endpoint, even one without a key", async () => {
    const call = await start({ OPENAI_BASE_URL: gateway.baseURL, OPENAI_API_KEY: 'host-openai-key' });
    expect((await call('PUT', '/v1/secrets/custom_endpoint', { base_url: custom.baseURL, models: ['llama'] })).status).toBe(200);
    const evaluation = (await call('POST', '/v1/evals', EVALUATION)).body;
    const run = await call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { inference_settings: { model: 'custom/llama' } });
    expect(run.status).toBe(200);
    expect(custom.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([['llama', 'Bearer none']]);
    expect(gateway.requests).toEqual([]);
  });
});

describe('DOCEVALS_SECRETS_KEY_FILE', () => {
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'docevals-key-file-'));
    return () => rm(folder, { recursive: true, force: true });
  });

  it('reads the master key from the named file (the same key as DOCEVALS_SECRETS_KEY), and refuses a file that is not there', async () => {
    const key = generateMasterKey();
    await writeFile(join(folder, 'master.key'), `${key}\n`, { mode: 0o600 });
    const fromFile = await loadSecretsKey({ dataDir: folder, secrets: { keyFile: join(folder, 'master.key') } });
    const fromVariable = await loadSecretsKey({ dataDir: folder, secrets: { key } });
    const sealed = await fromVariable.cipher.encrypt('sk-value', 'org_a/OpenAI');
    expect(await fromFile.cipher.decrypt(sealed, 'org_a/OpenAI')).toEqual({ plaintext: 'sk-value', stale: false });
    expect(fromFile.cipher.keyId).toBe(fromVariable.cipher.keyId);
    expect(fromFile.source).toBe(join(folder, 'master.key'));
    await expect(loadSecretsKey({ dataDir: folder, secrets: { keyFile: join(folder, 'missing.key') } })).rejects.toThrow(
      /DOCEVALS_SECRETS_KEY_FILE names .*missing\.key, which does not exist/,
    );
    await writeFile(join(folder, 'bad.key'), 'not a key\n');
    await expect(loadSecretsKey({ dataDir: folder, secrets: { keyFile: join(folder, 'bad.key') } })).rejects.toThrow(/DOCEVALS_SECRETS_KEY_FILE/);
  });
});
