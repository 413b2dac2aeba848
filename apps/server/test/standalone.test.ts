import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { apiClient as client } from './support/api-client.js';
import { createStandaloneServer } from '../src/app.js';
import { standaloneServers } from './support/standalone-servers.js';
import { createLogger } from '../src/observability/logger.js';

const INVOICE_URL = `data:text/plain;base64,${Buffer.from('Invoice number: INV-7\nTotal: 70\n').toString('base64')}`;
const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } };
const LOG_LINE = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S* \d{3}( \(aborted\))? \d+\.\dms$/;

const servers = standaloneServers('docevals-standalone-');

async function start(env: Record<string, string> = {}) {
  const lines: string[] = [];
  /** The JSON log lines (requests, errors), parsed. */
  const logs: Array<Record<string, unknown> & { msg: string }> = [];
  const logger = createLogger({ pretty: false, write: (line) => logs.push(JSON.parse(line)) });
  const { app, url } = await servers.start({ DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, ...env }, { log: (l) => lines.push(l), logger });
  return { app, url, lines, logs };
}


describe('the standalone server', () => {
  it('generates a key on first start, prints it once, and keeps it for the next start', async () => {
    const first = await start();
    const key = first.app.generatedKey!;
    expect(key).toMatch(/^dk_[A-Za-z0-9_-]{32}$/);
    expect(first.lines.filter((l) => l.includes(key))).toHaveLength(3); // the key itself, the curl example and the sample's curl example
    // Marked shown once printed: the next start does not print it again.
    const file = JSON.parse(await readFile(join(servers.dataDir, 'api-keys.json'), 'utf8'));
    expect(file).toEqual({ keys: { [key]: 'default' } });
    expect((await stat(join(servers.dataDir, 'api-keys.json'))).mode & 0o077).toBe(0);
    expect(first.lines.some((l) => l.startsWith('docevals listening on http://127.0.0.1:'))).toBe(true);
    expect(first.lines.some((l) => l.startsWith('try: curl '))).toBe(true);
    expect(first.lines).toContain(`API reference: ${first.url}/docs`);
    const docs = await fetch(`${first.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/docs/redoc.standalone.js');
    await first.app.close();

    const second = await start();
    expect(second.app.generatedKey).toBeUndefined();
    expect(second.lines.join('\n')).not.toContain(key);
    expect((await client(second.url, key)('GET', '/v1/evals')).status).toBe(200);
  });

  it('shows a generated key at the next start when the start that made it could not listen (port taken)', async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const takenPort = (blocker.address() as AddressInfo).port;
    try {
      const lines: string[] = [];
      const refused = await createStandaloneServer({ DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, PORT: String(takenPort), HOST: '127.0.0.1', DATA_DIR: servers.dataDir }, { log: (l) => lines.push(l) });
      servers.track(refused);
      const failure = await refused.listen().then(() => null, (error: Error) => error);
      expect(failure?.message).toBe(
        `port ${takenPort} is already in use on 127.0.0.1 (another server is listening there). ` +
          'Stop it, or choose another port: PORT=3000 pnpm start',
      );
      expect(lines).toEqual([]); // nothing printed, the key included
      const key = refused.generatedKey!;
      expect(JSON.parse(await readFile(join(servers.dataDir, 'api-keys.json'), 'utf8'))).toEqual({ keys: { [key]: 'default' }, shown: false });
      await refused.close();
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }

    const next = await start();
    const key = next.app.generatedKey!;
    expect(next.lines).toContain(`  ${key}`);
    expect(JSON.parse(await readFile(join(servers.dataDir, 'api-keys.json'), 'utf8'))).toEqual({ keys: { [key]: 'default' } });
    expect((await client(next.url, key)('GET', '/v1/evals')).status).toBe(200);
    await next.app.close();

    const third = await start();
    expect(third.app.generatedKey).toBeUndefined();
    expect(third.lines.join('\n')).not.toContain(key);
    expect(third.lines).toContain(`API keys: ${join(servers.dataDir, 'api-keys.json')}`);
  });

  it('runs the seed flow, and finds all of it again after a restart on the same DATA_DIR', async () => {
    const first = await start();
    const key = first.app.generatedKey!;
    const call = client(first.url, key);

    const evaluation = (await call('POST', '/v1/evals', {
      name: 'Standalone',
      json_schema: SCHEMA,
      documents: [{ mime_data: { filename: 'inv.txt', url: INVOICE_URL }, annotation: { invoice_number: 'INV-7', total: 70 } }],
    })).body;
    expect(evaluation.id).toMatch(/^eval_/);
    expect((await call('PATCH', `/v1/evals/${evaluation.id}`, { name: 'Standalone 2' })).body.name).toBe('Standalone 2');
    const iteration = (await call('POST', `/v1/evals/${evaluation.id}/iterations/create`, { inference_settings: { model: 'local-rules' } })).body;
    expect(iteration.metric_results.mean_similarity).toBe(1);
    expect((await call('GET', `/v1/evals/${evaluation.id}/iterations?model=local-rules`)).body.data).toHaveLength(1);
    const documentId = evaluation.documents[0].id;
    const annotated = await call('PUT', `/v1/evals/${evaluation.id}/documents/${documentId}`, { annotation: { invoice_number: 'INV-7', total: 71 } });
    expect(annotated.status).toBe(200);
    const processor = (await call('POST', '/v1/processors', { name: 'Reader', model: 'local-rules', json_schema: SCHEMA })).body;
    const updated = await call('PUT', `/v1/processors/${processor.id}`, { temperature: 1 });
    expect(updated.body.temperature).toBe(1);

    const before = {
      evaluation: (await call('GET', `/v1/evals/${evaluation.id}`)).body,
      iterations: (await call('GET', `/v1/evals/${evaluation.id}/iterations`)).body,
      processor: (await call('GET', `/v1/processors/${processor.id}`)).body,
    };
    expect(first.logs.filter((l) => LOG_LINE.test(l.msg)).length).toBeGreaterThanOrEqual(10);
    expect(first.logs.find((l) => /^POST \/v1\/evals 200 \d+\.\dms$/.test(l.msg))).toMatchObject({ level: 'info', operation: 'evals.create', status: 200 });
    await first.app.close();

    const second = await start();
    const again = client(second.url, key);
    expect((await again('GET', `/v1/evals/${evaluation.id}`)).body).toEqual(before.evaluation);
    expect((await again('GET', `/v1/evals/${evaluation.id}/iterations`)).body).toEqual(before.iterations);
    expect((await again('GET', `/v1/processors/${processor.id}`)).body).toEqual(before.processor);
    expect(before.evaluation.documents[0].annotation.total).toBe(71);
    expect(before.iterations.data[0].metric_results.mean_similarity).toBeLessThan(1);
  });

  it('takes its keys from DOCEVALS_API_KEYS when set, and writes no key file', async () => {
    const { app, url } = await start({ DOCEVALS_API_KEYS: 'k-one:acme, k-two:globex' });
    expect(app.generatedKey).toBeUndefined();
    await expect(stat(join(servers.dataDir, 'api-keys.json'))).rejects.toThrow();
    const acme = await client(url, 'k-one')('POST', '/v1/processors', { name: 'A', model: 'local-rules', json_schema: SCHEMA });
    expect(acme.body.organization_id).toBe('acme');
    expect((await client(url, 'k-two')('GET', `/v1/processors/${acme.body.id}`)).status).toBe(404);
    expect((await client(url, 'nope')('GET', '/v1/processors')).status).toBe(401);
  });

  it('refuses a malformed environment at start', async () => {
    await expect(createStandaloneServer({ PORT: 'eighty', DATA_DIR: servers.dataDir })).rejects.toThrow(/PORT/);
    await expect(createStandaloneServer({ DOCEVALS_API_KEYS: 'no-organization', DATA_DIR: servers.dataDir })).rejects.toThrow(/DOCEVALS_API_KEYS/);
    await expect(createStandaloneServer({ DOCEVALS_CONCURRENCY: '0', DATA_DIR: servers.dataDir })).rejects.toThrow(/DOCEVALS_CONCURRENCY/);
  });

  it('serves the web app at / and its routes, and leaves /v1, /trpc, /docs and /health to the APIs', async () => {
    const webDir = join(servers.dataDir, 'web-app');
    await mkdir(join(webDir, 'assets'), { recursive: true });
    await writeFile(join(webDir, 'index.html'), '<!doctype html><div id="root"></div>');
    await writeFile(join(webDir, 'assets/index-1.js'), 'export {};');
    const { url } = await start({ DOCEVALS_WEB_DIR: webDir });
    for (const path of ['/', '/evals/eval_1', '/evals/eval_1/documents/doc_1']) {
      const page = await fetch(`${url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<div id="root">');
    }
    const asset = await fetch(`${url}/assets/index-1.js`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
    // The APIs keep their paths: JSON 401 without a key, REST's answer for any /v1 path, /health without a key.
    const anonymous = await fetch(`${url}/v1/evals`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/json');
    const unknown = await fetch(`${url}/v1/no-such-thing`);
    expect(unknown.headers.get('content-type')).toContain('application/json'); // REST's answer, not the app
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/trpc/evals.list`)).status).toBe(401);
  });

  it('serves the tRPC router at /trpc with the same keys', async () => {
    const { app, url } = await start();
    const key = app.generatedKey!;
    const processor = (await client(url, key)('POST', '/v1/processors', { name: 'T', model: 'local-rules', json_schema: SCHEMA })).body;
    const input = encodeURIComponent(JSON.stringify({ processor_id: processor.id }));
    const viaTrpc = await fetch(`${url}/trpc/processors.get?input=${input}`, { headers: { 'api-key': key } });
    expect(viaTrpc.status).toBe(200);
    expect(((await viaTrpc.json()) as any).result.data).toMatchObject({ id: processor.id, name: 'T' });
    const anonymous = await fetch(`${url}/trpc/processors.get?input=${input}`);
    expect(anonymous.status).toBe(401);
  });

  it('finishes a request in flight when closed, and refuses new connections', async () => {
    const { app, url } = await start();
    const key = app.generatedKey!;
    const body = JSON.stringify({ name: 'In flight', model: 'local-rules', json_schema: SCHEMA });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${url}/v1/processors`, {
        method: 'POST',
        headers: { 'api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 300);
    });
    await new Promise((r) => setTimeout(r, 100)); // the request is in flight, half its body sent
    const closed = app.close();
    const late = fetch(`${url}/health`).then(
      () => 'answered',
      () => 'refused',
    );
    const done = await answer;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.text).name).toBe('In flight');
    await closed;
    expect(await late).toBe('refused');
  });

  it('shuts down cleanly on SIGTERM when run as `tsx src/server.ts`', async () => {
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: servers.dataDir, DOCEVALS_API_KEYS: 'sig-key:sig' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 30_000);
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const made = await client(url, 'sig-key')('POST', '/v1/processors', { name: 'S', model: 'local-rules', json_schema: SCHEMA });
    expect(made.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGTERM: finishing the requests in flight/);
    expect(output).toMatch(/POST \/v1\/processors 200 \d+\.\dms/);

    const { url: url2 } = await start({ DOCEVALS_API_KEYS: 'sig-key:sig' });
    expect((await client(url2, 'sig-key')('GET', `/v1/processors/${made.body.id}`)).body.name).toBe('S');
  });

  it('stores in Redis when REDIS_URL is set, and finds it again after a restart', async () => {
    const organization = `org_standalone_${Date.now().toString(36)}`;
    const env = { REDIS_URL: inject('redisUrl'), DOCEVALS_API_KEYS: `redis-key:${organization}` };
    const first = await start(env);
    expect(first.lines.some((l) => l.startsWith('storage: Redis at redis://'))).toBe(true);
    const made = await client(first.url, 'redis-key')('POST', '/v1/processors', { name: 'R', model: 'local-rules', json_schema: SCHEMA });
    expect(made.body.organization_id).toBe(organization);
    await first.app.close();

    const second = await start(env);
    const again = client(second.url, 'redis-key');
    expect((await again('GET', `/v1/processors/${made.body.id}`)).body).toEqual(made.body);
    expect((await again('DELETE', `/v1/processors/${made.body.id}`)).body).toEqual({ id: made.body.id, deleted: true, success: true });
  });

  it('stores in PostgreSQL when DATABASE_URL is set, and finds it again after a restart', async () => {
    const organization = `org_standalone_${Date.now().toString(36)}`;
    const env = { DATABASE_URL: inject('databaseUrl'), DOCEVALS_API_KEYS: `pg-key:${organization}` };
    const first = await start(env);
    expect(first.lines.some((l) => l.startsWith('storage: PostgreSQL at postgres://'))).toBe(true);
    const made = await client(first.url, 'pg-key')('POST', '/v1/processors', { name: 'P', model: 'local-rules', json_schema: SCHEMA });
    expect(made.body.organization_id).toBe(organization);
    await first.app.close();

    const second = await start(env);
    const again = client(second.url, 'pg-key');
    expect((await again('GET', `/v1/processors/${made.body.id}`)).body).toEqual(made.body);
    expect((await again('DELETE', `/v1/processors/${made.body.id}`)).body).toEqual({ id: made.body.id, deleted: true, success: true });
  });

  it('serves the providers\' models (each organization\'s key or the host\'s), and every other model through OpenAI when OPENAI_API_KEY or OPENAI_BASE_URL is set', async () => {
    const plain = await start({ DOCEVALS_API_KEYS: 'k:o' });
    const providers = ['gpt-*', '/^o\\d/', 'chatgpt-*', 'claude-*', 'gemini-*', 'grok-*', 'custom/*'];
    expect(plain.app.docevals.models()).toEqual(['local-rules', ...providers]);
    await plain.app.close();
    const withOpenAI = await start({ DOCEVALS_API_KEYS: 'k:o', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(withOpenAI.app.docevals.models()).toEqual(['local-rules', ...providers, '*']);
    expect(withOpenAI.lines.join('\n')).not.toContain('sk-test');
  });
});
