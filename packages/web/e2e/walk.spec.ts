// The walk through the workspace, as a person would: name an iteration (shown wherever it is), its page; fix
// a ground truth through the form generated from the schema, starting from a prediction; import annotations from a
// CSV with a preview; go to the next unlabeled document by key. Seeded over REST: 4 receipts with a nested object
// and line items, 3 imported iterations.
import { Buffer } from 'node:buffer';
import { expect, test } from '@playwright/test';
import { rest, screenshotPath, signIn } from './support.js';

const text = (content: string) => `data:text/plain;base64,${Buffer.from(content).toString('base64')}`;
const schema = {
  type: 'object',
  properties: {
    vendor: { type: 'string' },
    total: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'USD', 'JPY'] },
    bill_to: { type: 'object', properties: { name: { type: 'string' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
  },
};
const truth = (i: number) => ({
  vendor: `Vendor ${i}`,
  total: 100 + i,
  currency: 'EUR',
  bill_to: { name: `Customer ${i}` },
  line_items: [{ description: `Item ${i}`, amount: 100 + i }],
});

async function seed(name: string) {
  const documents = [0, 1, 2, 3].map((i) => ({ mime_data: { filename: `receipt-${i}.txt`, url: text(`receipt ${i}`) }, annotation: truth(i) }));
  return rest('POST', '/v1/evals', {
    name,
    json_schema: schema,
    documents,
    iterations: [
      { inference_settings: { model: 'draft-model' }, predictions: [0, 1, 2, 3].map((i) => ({ prediction: { ...truth(i), vendor: i === 2 ? 'Wrong' : `Vendor ${i}` } })) },
      { inference_settings: { model: 'better-model' }, predictions: [0, 1, 2, 3].map((i) => ({ prediction: { ...truth(i), bill_to: { name: i === 3 ? 'Someone' : `Customer ${i}` } } })) },
      {
        inference_settings: { model: 'flaky-model' },
        predictions: [0, 1, 2, 3].map((i) => (i === 1 ? { prediction: {}, metadata: { error: 'the provider timed out' } } : { prediction: truth(i) })),
      },
    ],
  });
}

test.describe.configure({ timeout: 180_000 });

test('name an iteration: its name everywhere, its page (summary, fields, documents)', async ({ page }) => {
  const evaluation = await seed('Walk: names');
  const [draft, better] = evaluation.iterations.map((iteration: { id: string }) => iteration.id);
  await signIn(page, `/evals/${evaluation.id}`);
  const leaderboard = page.getByRole('table', { name: 'Leaderboard' });
  await leaderboard.getByRole('link', { name: 'better-model' }).click();
  await expect(page).toHaveURL(new RegExp(`/iterations/${better}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`better-model (${better})`);
  await expect(page.getByRole('region', { name: 'Summary' })).toContainText('4 succeeded · 0 failed · 0 pending');

  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Better prompt');
  await page.getByLabel('Description').fill('The prompt that spells out bill_to.');
  await page.getByLabel('Tags').fill('prompt-v2, candidate');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Better prompt');
  await expect(page.getByText('The prompt that spells out bill_to.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Tags' }).getByRole('listitem')).toHaveText(['prompt-v2', 'candidate']);
  // Its fields, worst first, and its documents (receipt-3's customer read wrong).
  await expect(page.getByRole('table', { name: 'Fields' }).getByRole('row').nth(1)).toContainText('bill_to.name');
  const documents = page.getByRole('table', { name: 'Documents of this iteration' });
  await expect(documents.getByRole('row')).toHaveCount(5);
  await expect(documents.getByRole('row', { name: /receipt-3/ })).toContainText('succeeded');
  await page.screenshot({ path: screenshotPath('iteration'), fullPage: true });

  // The name stands for the iteration on the evaluation page: leaderboard, matrix header, compare's selects.
  await page.getByRole('link', { name: 'Back to the evaluation' }).click();
  await expect(leaderboard.getByRole('link', { name: 'Better prompt' })).toBeVisible();
  const matrix = page.getByRole('grid', { name: 'Matrix' });
  await expect(matrix.getByRole('columnheader', { name: 'Sort by Better prompt' })).toBeVisible();
  await expect(matrix.getByRole('gridcell', { name: /^receipt-3\.txt × Better prompt: / })).toBeVisible();
  await expect(page.getByLabel('Head').getByRole('option', { name: 'Better prompt' })).toHaveCount(1);
  await expect(page.getByRole('table', { name: 'Fields × iterations' }).getByRole('columnheader', { name: 'Better prompt' })).toBeVisible();
  await page.goto(new URL(`/evals/${evaluation.id}/compare?base=${draft}&head=${better}`, page.url()).href);
  await expect(page.getByText(`base draft-model (${draft}) → head Better prompt`)).toBeVisible();
});
