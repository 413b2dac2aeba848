import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRulesExtractor, type Extractor } from '@docevals/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '@docevals/core/internal';
import { PROVIDER_NAMES } from '../src/program.js';
import { API_KEY, ORG, runCli, startServer, type TestServer } from './support/harness.js';

const KEY = 'sk-ant-cli-0123456789abcdef';
const OTHER_KEY = 'sk-ant-cli-replaced-fedcba9876';

/** A real extractor for `claude-*` that needs the organization's Anthropic key and records the key each call got. */
function recordingExtractor(seen: Array<string | undefined>): Extractor {
  const inner = localRulesExtractor();
  return {
    name: 'anthropic-recorder',
    models: ['claude-*'],
    credentials: () => ({ provider: 'Anthropic', host: false }),
    async extract(request) {
      seen.push(request.credentials?.api_key);
      return inner.extract(request);
    },
  };
}

describe('docevals secrets against a server', () => {
  let dir: string;
  let server: TestServer;
  const seen: Array<string | undefined> = [];
  const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    runCli(['--url', server.url, '--api-key', API_KEY, ...args], { cwd: dir, ...options });
  /** Runs `claude-test` over a one-document evaluation: the key the extractor got, or the refusal. */
  const runClaude = async () => {
    const evaluation = await server.docevals.evals.create(ORG, {
      name: 'secrets',
      json_schema: { type: 'object', properties: { total: { type: ['number', 'null'] } } },
      documents: [{ mime_data: { filename: 'a.txt', url: `data:text/plain;base64,${Buffer.from('Total: 42').toString('base64')}` }, annotation: { total: 42 } }],
    });
    await server.docevals.evals.iterations.create(ORG, { evaluation_id: evaluation.id, inference_settings: { model: 'claude-test' } });
    return seen.at(-1);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docevals-cli-secrets-'));
    server = await startServer(join(dir, 'store'), { secrets: true, extractors: [recordingExtractor(seen)] });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('set reads the key from stdin (its line break dropped), ls shows it configured, and no output carries it', async () => {
    const set = await cli(['secrets', 'set', 'anthropic'], { input: `${KEY}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Anthropic key stored \(encrypted on the server\)/);
    const ls = await cli(['secrets', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/Anthropic\s+configured\s+\d{4}-/);
    expect(ls.stdout).toMatch(/OpenAI\s+not configured/);
    const json = await cli(['--json', 'secrets', 'ls']);
    const listed = JSON.parse(json.stdout);
    expect(listed.keys.find((k: { provider: string }) => k.provider === 'Anthropic')).toMatchObject({ is_configured: true });
    expect(listed.custom_endpoint).toMatchObject({ is_configured: false });
    for (const r of [set, ls, json]) expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(await runClaude()).toBe(KEY);
  });

  it('set --from-env reads a named variable and replaces the key', async () => {
    const set = await cli(['secrets', 'set', 'Anthropic', '--from-env', 'MY_ANTHROPIC_KEY'], { env: { MY_ANTHROPIC_KEY: OTHER_KEY } });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(OTHER_KEY);
    expect(await runClaude()).toBe(OTHER_KEY);
    const unset = await cli(['secrets', 'set', 'Anthropic', '--from-env', 'DOCEVALS_TEST_NOT_SET']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('--from-env DOCEVALS_TEST_NOT_SET: that variable is not set');
  });

  it('refuses a key on the command line, an empty key and an unknown provider (exit 2), storing nothing', async () => {
    const before = await server.docevals.secrets.externalApiKeys.get(ORG, { provider: 'OpenAI' });
    expect(before.is_configured).toBe(false);
    const argv = await cli(['secrets', 'set', 'OpenAI', 'sk-on-the-command-line']);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/too many arguments/);
    const empty = await cli(['secrets', 'set', 'OpenAI'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no OpenAI key given: pipe it on stdin');
    const unknown = await cli(['secrets', 'set', 'Mistral'], { input: KEY });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "Mistral": one of OpenAI, Anthropic, Gemini, xAI, custom');
    expect((await server.docevals.secrets.externalApiKeys.get(ORG, { provider: 'OpenAI' })).is_configured).toBe(false);
  });

  it('set custom stores an endpoint (URL, models, optional key); a bad URL is the server\'s refusal (exit 4)', async () => {
    const missing = await cli(['secrets', 'set', 'custom'], { input: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --base-url URL and --models');
    const bad = await cli(['secrets', 'set', 'custom', '--base-url', 'ftp://127.0.0.1/v1', '--models', 'm1'], { input: '' });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('base_url must be an http(s) URL');
    const set = await cli(['secrets', 'set', 'custom', '--base-url', 'http://127.0.0.1:9/v1', '--models', 'm1, m2'], { input: 'sk-custom-key\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('custom endpoint http://127.0.0.1:9/v1 stored (with a key): its models run as custom/m1, custom/m2');
    expect(set.stdout).not.toContain('sk-custom-key');
    expect(await server.docevals.secrets.customEndpoint.get(ORG)).toMatchObject({ is_configured: true, models: ['m1', 'm2'], has_api_key: true });
    const ls = await cli(['secrets', 'ls']);
    expect(ls.stdout).toMatch(/custom\s+configured\s+\S+\s+http:\/\/127\.0\.0\.1:9\/v1 · custom\/m1, custom\/m2/);
  });

  it('rm removes a key or the endpoint, and says when there was none', async () => {
    const removed = await cli(['secrets', 'rm', 'Anthropic']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout.trim()).toBe('Anthropic key removed');
    const again = await cli(['--json', 'secrets', 'rm', 'Anthropic']);
    expect(JSON.parse(again.stdout)).toEqual({ name: 'Anthropic', deleted: false });
    expect((await cli(['secrets', 'rm', 'custom'])).stdout.trim()).toBe('custom endpoint removed');
    expect((await server.docevals.secrets.customEndpoint.get(ORG)).is_configured).toBe(false);
    // Without the key, the model is refused, naming the provider and this command.
    await expect(runClaude()).rejects.toThrow(/Anthropic.*docevals secrets set Anthropic/);
  });
});

describe('docevals secrets without a master key', () => {
  it('a server without one answers how to configure it (exit 3); a local store says secrets live on a server (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docevals-cli-nosecrets-'));
    const server = await startServer(join(dir, 'store'));
    try {
      const ls = await runCli(['--url', server.url, '--api-key', API_KEY, 'secrets', 'ls'], { cwd: dir });
      expect(ls.code).toBe(3);
      expect(ls.stderr).toMatch(/501 not_configured: Organization secrets are not configured on this server/);
      // The server is asked before the key is: nobody types a key a server cannot keep (stdin left open: no key comes).
      const set = await runCli(['--url', server.url, '--api-key', API_KEY, 'secrets', 'set', 'OpenAI'], { cwd: dir, stdinOpen: true, timeoutMs: 20_000 });
      expect(set.code).toBe(3);
      expect(set.stderr).toMatch(/not_configured/);
      const local = await runCli(['--data-dir', join(dir, 'local'), 'secrets', 'set', 'OpenAI'], { cwd: dir, input: KEY });
      expect(local.code).toBe(2);
      expect(local.stderr).toContain('organization secrets are kept by a server');
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

it("--help's provider list is core's (written out there so that --help does not load the core)", () => {
  expect([...PROVIDER_NAMES]).toEqual([...PROVIDERS]);
});
