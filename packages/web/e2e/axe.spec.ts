// axe-core on every page of the workspace, light and dark: no serious or critical violation. Seeded over REST: one
// evaluation, 2 documents, 2 imported iterations (one failed document), so that each view has content to check.
import { Buffer } from 'node:buffer';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { rest, signIn } from './support.js';

// Fourteen views through axe, each a few seconds on a shared machine.
test.describe.configure({ timeout: 540_000 });

const text = (content: string) => `data:text/plain;base64,${Buffer.from(content).toString('base64')}`;

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`);
}

test('axe: no serious or critical violation on any page, light and dark', async ({ page }) => {
  const schema = { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' } } };
  const evaluation = await rest('POST', '/v1/evals', {
    name: 'Axe e2e',
    json_schema: schema,
    documents: [0, 1].map((i) => ({ mime_data: { filename: `axe-${i}.txt`, url: text(`doc ${i}`) }, annotation: { vendor: `V${i}`, total: i } })),
    iterations: [
      { inference_settings: { model: 'axe-a' }, predictions: [{ prediction: { vendor: 'V0', total: 1 } }, { prediction: {}, metadata: { error: 'timeout' } }] },
      { inference_settings: { model: 'axe-b' }, predictions: [{ prediction: { vendor: 'V0', total: 0 } }, { prediction: { vendor: 'X1', total: 1 } }] },
    ],
  });
  const [a, b] = evaluation.iterations.map((iteration: { id: string }) => iteration.id);
  const documentId = evaluation.documents[0].id;
  await signIn(page, '/');
  const pages: Array<[string, string, string]> = [
    ['/', 'Evaluations', 'list'],
    [`/evals/${evaluation.id}?outcome=failed`, 'Axe e2e', 'evaluation'],
    [`/evals/${evaluation.id}/compare?base=${a}&head=${b}&field=vendor`, 'Compare iterations', 'compare'],
    [`/evals/${evaluation.id}/documents/${documentId}?compare=${a},${b}`, 'axe-0.txt', 'document'],
    [`/evals/${evaluation.id}/iterations/${a}`, `axe-a (${a})`, 'iteration'],
  ];
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [path, heading, name] of pages) {
      await page.goto(new URL(path, page.url()).href);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
      for (const violation of await seriousViolations(page)) found.push(`${scheme} ${name}: ${violation}`);
      // The document's ground-truth form (generated from the schema) and the evaluation's import panel, opened.
      const opener = name === 'document' ? 'Edit ground truth' : name === 'evaluation' ? 'Import annotations' : null;
      if (opener) {
        await page.getByRole('button', { name: opener }).click();
        if (name === 'document') await expect(page.locator('form.schema-form')).toBeVisible();
        for (const violation of await seriousViolations(page)) found.push(`${scheme} ${name} (${opener}): ${violation}`);
      }
    }
  }
  if (found.length > 0) console.log(found.join('\n'));
  expect(found).toEqual([]);
});
