import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { expect, it } from 'vitest';

// The README's "Use it in-process" snippet promises a mean similarity of 1; its document is read from the README
// itself, so the promise and this check cannot drift apart.
it('gives the result the README snippet shows', async () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it in-process'), readme.indexOf('## The REST API'));
  const url = /url: '(data:text\/plain;base64,[A-Za-z0-9+/=]+)'/.exec(section)?.[1];
  expect(url).toBeDefined();
  expect(section).toContain("annotation: { vendor: 'ACME', total: 42 }");
  expect(section).toContain('// 1');

  const docevals = createDocevals({ storage: memoryStorage() });
  const evaluation = await docevals.evals.create('org_1', {
    name: 'Invoices',
    json_schema: { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' } } },
    default_inference_settings: { model: 'local-rules' },
    documents: [{ mime_data: { filename: 'a.txt', url: url! }, annotation: { vendor: 'ACME', total: 42 } }],
  });
  const iteration = await docevals.evals.iterations.create('org_1', { evaluation_id: evaluation.id });
  expect(iteration.metric_results.mean_similarity).toBe(1);
});

// "Run it from the repository root with `pnpm example:snippet`": the file that command runs is the README's block,
// character for character, and it prints what the README's comment says.
it('runs as written with `pnpm example:snippet`, whose file is the README block itself', async () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const block = /## Use it in-process\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  const file = readFileSync(new URL('../src/snippet.ts', import.meta.url), 'utf8');
  expect(file.replace(/^\/\/.*\n/, '')).toBe(block);
  expect(readme).toContain('`pnpm example:snippet`');

  const root = new URL('../../../', import.meta.url);
  const { stdout } = await promisify(execFile)('pnpm', ['--silent', 'example:snippet'], { cwd: root, encoding: 'utf8' });
  expect(stdout).toBe('1\n');
});
