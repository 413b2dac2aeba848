import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMasterKey } from '@docevals/core';
import { createStandaloneServer } from '../src/app.js';
import { apiClient } from './support/api-client.js';
import { standaloneServers } from './support/standalone-servers.js';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

const SECRET = 'sk-ant-secret-value-0123456789';
const KEYS = 'key-a:org_a,key-b:org_b';
const EVALUATION = {
  name: 'Invoices',
  json_schema: { type: 'object', properties: { total: { type: ['number', 'null'] } }, required: ['total'], additionalProperties: false },
  documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Total: 42').toString('base64')}` }, annotation: { total: 42 } }],
};

const servers = standaloneServers('docevals-secrets-');

async function start(env: Record<string, string> = {}) {
  const lines: string[] = [];
  const { app, url } = await servers.start({ DOCEVALS_API_KEYS: KEYS, ...env }, { log: (l) => lines.push(l) });
  const call = (method: string, path: string, body?: unknown, key = 'key-a') => apiClient(url, key)(method, path, body);
  return { app, url, lines, call };
}

/** Every file under `dir`, as bytes. */
async function allFiles(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push({ path: join(entry.parentPath, entry.name), bytes: await readFile(join(entry.parentPath, entry.name)) });
  }
  return out;
}

describe('organization secrets in the standalone server', () => {
  it('generates a 0600 master key, keeps keys sealed on disk and out of every answer and log line, and stops on a wrong key', async () => {
    const { call, lines, app } = await start();
    expect((await stat(join(servers.dataDir, 'secrets.key'))).mode & 0o777).toBe(0o600);
    const created = await call('POST', '/v1/secrets/external_api_keys', { provider: 'Anthropic', api_key: SECRET });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ provider: 'Anthropic', is_configured: true });
    const list = await call('GET', '/v1/secrets/external_api_keys');
    expect(list.body.map((k: { provider: string; is_configured: boolean }) => [k.provider, k.is_configured])).toEqual([
      ['OpenAI', false], ['Anthropic', true], ['Gemini', false], ['xAI', false],
    ]);
    expect((await call('GET', '/v1/secrets/external_api_keys/Anthropic', undefined, 'key-b')).body).toEqual({ provider: 'Anthropic', is_configured: false, last_updated: null });
    const models = await call('GET', '/v1/models');
    expect(models.body.data.filter((m: { provider: string }) => m.provider === 'Anthropic').map((m: { id: string }) => m.id)).toContain('claude-sonnet-4-5');
    expect((await call('GET', '/v1/models', undefined, 'key-b')).body.data.some((m: { provider: string }) => m.provider === 'Anthropic')).toBe(false);
    const missing = await call('POST', '/v1/evals', EVALUATION, 'key-b');
    const refused = await call('POST', `/v1/evals/${missing.body.id}/iterations/create`, { inference_settings: { model: 'claude-sonnet-4-5' } }, 'key-b');
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/Anthropic.*POST \/v1\/secrets\/external_api_keys/);

    const answers = [created, list, models].map((r) => r.text).join('\n');
    expect(answers).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain(SECRET);
    await app.close(100);
    for (const file of await allFiles(servers.dataDir)) expect(file.bytes.includes(SECRET), file.path).toBe(false);

    const wrong = createStandaloneServer({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: servers.dataDir, DOCEVALS_API_KEYS: KEYS, DOCEVALS_SECRETS_KEY: generateMasterKey() }, { log: () => {} });
    await expect(wrong).rejects.toThrow(/organization secrets: The stored secrets were encrypted with the master key [0-9a-f]{12}, which is not configured here/);

    // Rotation: the generated key as the previous one, a new one current: everything re-encrypted at start.
    const previous = (await readFile(join(servers.dataDir, 'secrets.key'), 'utf8')).trim();
    const rotated = await start({ DOCEVALS_SECRETS_KEY: generateMasterKey(), DOCEVALS_SECRETS_KEY_PREVIOUS: previous });
    expect(rotated.lines.join('\n')).toMatch(/2 secrets re-encrypted from the previous key/);
    expect((await rotated.call('GET', '/v1/secrets/external_api_keys/Anthropic')).body.is_configured).toBe(true);
  });

  it("runs each organization's iteration on its own custom endpoint with its own key", async () => {
    const [a, b] = [new FakeOpenAIServer(), new FakeOpenAIServer()];
    await Promise.all([a.start(), b.start()]);
    try {
      for (const s of [a, b]) s.handle = () => ({ body: completion({ total: 42 }) });
      const { call } = await start();
      expect((await call('PUT', '/v1/secrets/custom_endpoint', { base_url: a.baseURL, api_key: 'org-a-key', models: ['m1'] }, 'key-a')).status).toBe(200);
      expect((await call('PUT', '/v1/secrets/custom_endpoint', { base_url: b.baseURL, api_key: 'org-b-key', models: ['m1'] }, 'key-b')).status).toBe(200);
      for (const key of ['key-a', 'key-b']) {
        const evaluation = (await call('POST', '/v1/evals', EVALUATION, key)).body;
        const run = await call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { inference_settings: { model: 'custom/m1' } }, key);
        expect(run.status).toBe(200);
        expect(run.body.metric_results.mean_similarity).toBe(1);
      }
      expect(a.requests.map((r) => r.headers.authorization)).toEqual(['Bearer org-a-key']);
      expect(b.requests.map((r) => r.headers.authorization)).toEqual(['Bearer org-b-key']);
      const endpoint = await call('GET', '/v1/secrets/custom_endpoint', undefined, 'key-b');
      expect(endpoint.body).toMatchObject({ is_configured: true, models: ['m1'], has_api_key: true });
      expect(endpoint.text).not.toContain('org-b-key');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
