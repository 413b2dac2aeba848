import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { createDocevals } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/harness.js';

// Issue 25: a model that fails 9 of 10 documents and is perfect on the tenth cannot pass the gate.
describe('docevals gate is strict (issue 25)', () => {
  let dir: string;
  let flags: string[];
  const cli = (...args: string[]) => runCli([...flags, ...args], { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docevals-gate-honest-'));
    const storeDir = join(dir, 'store');
    flags = ['--data-dir', storeDir];
    const docevals = createDocevals({ storage: lowdbStorage({ dir: storeDir }), jobs: { resume: false } });
    try {
      const schema = { type: 'object', properties: { total: { type: 'number' } } };
      const documents = Array.from({ length: 10 }, (_, i) => ({
        mime_data: { filename: `doc-${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`Total: 10 (${i})`).toString('base64')}` },
        annotation: { total: 10 },
      }));
      await docevals.evals.create('local', {
        name: 'tenfold',
        json_schema: schema,
        documents,
        iterations: [
          // 0.6 on every document
          { inference_settings: { model: 'steady' }, predictions: documents.map(() => ({ prediction: { total: 6 } })) },
          // perfect on doc-0, failed on the other nine
          {
            inference_settings: { model: 'flaky' },
            predictions: documents.map((_, i) => (i === 0 ? { prediction: { total: 10 } } : { prediction: {}, metadata: { error: 'provider timeout' } })),
          },
        ],
      });
    } finally {
      await docevals.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--min-mean 0.5 fails: the mean counts the 9 failures as 0 (0.1), coverage 0.1', async () => {
    const r = await cli('gate', 'tenfold', '--min-mean', '0.5', '--max-failed', '9');
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/✗ min-mean: mean similarity 0\.1000 of eval_iter_\S+ \(flaky; failures count 0, coverage 0\.1000, 1\.0000 over succeeded documents\) is below the minimum 0\.5/);
    expect(r.stdout).toMatch(/✓ max-failed: 9 of 10 labeled documents failed .* \(allowed 9\)/);
  });

  it('plain gate fails, naming the 9 failed documents in text, JSON, JUnit and GitHub reports', async () => {
    const text = await cli('gate', 'tenfold');
    expect(text.code, text.stdout + text.stderr).toBe(1);
    expect(text.stdout).toMatch(/✗ max-failed: 9 of 10 labeled documents failed in eval_iter_\S+ \(allowed 0\): doc-1\.txt, doc-2\.txt/);
    expect(text.stdout).toContain('failed documents (9):');
    const report = JSON.parse((await cli('--json', 'gate', 'tenfold')).stdout);
    expect(report.passed).toBe(false);
    expect(report.failed_documents.map((d: { filename: string }) => d.filename)).toEqual(Array.from({ length: 9 }, (_, i) => `doc-${i + 1}.txt`));
    expect(report.iteration).toMatchObject({ mean_similarity: expect.closeTo(0.1, 9), coverage: expect.closeTo(0.1, 9), succeeded_mean_similarity: 1 });
    const junit = (await cli('gate', 'tenfold', '--format', 'junit')).stdout;
    expect(junit).toMatch(/<testcase classname="docevals.gate.tenfold" name="max-failed">\s*<failure message="9 of 10 labeled documents failed/);
    expect(junit).toContain('doc-9.txt');
    const github = (await cli('gate', 'tenfold', '--format', 'github')).stdout;
    expect(github.match(/^::error title=docevals failed document/gm)).toHaveLength(9);
    // 90% allowed: the failures pass, the mean is still reported honestly.
    const allowed = await cli('gate', 'tenfold', '--max-failed', '90%');
    expect(allowed.code, allowed.stdout).toBe(0);
  });

  it('--max-regression prints the paired interval; --significant needs it; bad --max-failed is a usage error', async () => {
    const r = await cli('gate', 'tenfold', '--max-failed', '9', '--max-regression', '0.1', '--against', 'previous');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/max-regression: mean similarity dropped 0\.5000 .*95% CI \[-\d\.\d{4}, -\d\.\d{4}\], significant/);
    expect((await cli('gate', 'tenfold', '--significant')).code).toBe(2);
    const bad = await cli('gate', 'tenfold', '--max-failed', 'many');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-failed takes a count (3) or a percentage (5%)');
  });
});
