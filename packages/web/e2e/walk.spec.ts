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

test('load the sample: 32 invoices, receipts and forms, two named iterations; Japanese renders in the shipped CJK font', async ({ page }) => {
  await signIn(page, '/');
  await page.getByRole('button', { name: 'Load the sample' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sample: invoices, receipts and forms');
  await expect(page.getByText('32 documents · 2 iterations')).toBeVisible();
  const leaderboard = page.getByRole('table', { name: 'Leaderboard' });
  await expect(leaderboard.getByRole('link')).toHaveText(['Explicit dates and signs', 'Baseline prompt']);
  await page.getByRole('grid', { name: 'Matrix' }).getByRole('link', { name: 'seikyusho-yamada.txt' }).click();
  await expect(page.getByText('株式会社山田商事').first()).toBeVisible();
  // The font is fetched for this page (its CSS and the files of the characters shown) and draws them.
  await expect.poll(() => page.evaluate(async () => { await document.fonts.ready; return document.fonts.check('16px "Noto Sans JP"', '請求書'); })).toBe(true);
  await expect.poll(() => page.evaluate(() => [...document.fonts].some((font) => font.family.includes('Noto Sans JP') && font.status === 'loaded'))).toBe(true);
  await page.screenshot({ path: screenshotPath('document-japanese') });
});

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

test('fix a ground truth through the form generated from the schema, starting from a prediction; N opens the next unlabeled document', async ({ page }) => {
  const evaluation = await seed('Walk: ground truth');
  const better = evaluation.iterations[1].id;
  // receipt-1 and receipt-2 lose their ground truth: the keyboard flow goes from one to the other.
  for (const i of [1, 2]) await rest('PUT', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[i].id}`, { annotation: {} });
  await signIn(page, `/evals/${evaluation.id}/documents/${evaluation.documents[3].id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-3.txt');
  await page.getByLabel('Iteration', { exact: true }).selectOption(better);
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  const form = page.locator('form.schema-form');
  // Typed inputs from the schema: a number box, the enum as a select, the nested object's field, the list's items.
  await expect(form.getByLabel('total')).toHaveAttribute('type', 'number');
  await expect(form.getByLabel('currency')).toHaveJSProperty('tagName', 'SELECT');
  await expect(form.getByLabel('name')).toHaveValue('Customer 3');
  await page.getByRole('button', { name: "Start from this iteration's prediction" }).click();
  // better-model read the customer as "Someone": corrected in its box.
  await expect(form.getByLabel('name')).toHaveValue('Someone');
  await form.getByLabel('name').fill('Someone Else');
  await form.getByLabel('currency').selectOption('USD');
  await form.getByLabel('description').fill('Item three');
  await page.screenshot({ path: screenshotPath('ground-truth-form'), fullPage: true });
  await form.getByRole('button', { name: 'Save' }).click();
  const fields = page.getByRole('table', { name: 'Fields' });
  await expect(fields.getByRole('row', { name: /bill_to\.name/ }).getByRole('cell').first()).toHaveText('Someone Else');
  await expect(fields.getByRole('row', { name: /^currency/ }).getByRole('cell').first()).toHaveText('USD');
  await expect(fields.getByRole('row', { name: /line_items\.0\.description/ }).getByRole('cell').first()).toHaveText('Item three');
  const stored = await rest('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[3].id}`);
  expect(stored.annotation).toEqual({ ...truth(3), currency: 'USD', bill_to: { name: 'Someone Else' }, line_items: [{ description: 'Item three', amount: 103 }] });

  // A refusal of the server shows under its field: a currency outside the enum, typed as JSON.
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  await page.getByRole('radio', { name: 'JSON' }).check();
  const editor = page.getByLabel('Annotation');
  await editor.fill((await editor.inputValue()).replace('"USD"', '"GBP"'));
  await page.getByRole('radio', { name: 'Form' }).check();
  await page.locator('form.schema-form').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('currency');
  await page.getByRole('button', { name: 'Cancel' }).click();

  // The keyboard: N (documented next to the editor) opens receipt-1 (after receipt-3, from the top), then receipt-2.
  await expect(page.getByRole('link', { name: 'Next unlabeled document: receipt-1.txt' })).toHaveAttribute('aria-keyshortcuts', 'n');
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-1.txt');
  await expect(page.getByRole('link', { name: 'Next unlabeled document: receipt-2.txt' })).toBeVisible();
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-2.txt');
});

test('import an annotations CSV: a preview (matched, unmatched, invalid) changes nothing; Apply writes the matched rows', async ({ page }) => {
  const evaluation = await seed('Walk: import');
  await signIn(page, `/evals/${evaluation.id}`);
  await page.getByRole('button', { name: 'Import annotations' }).click();
  const csv = ['filename,vendor,total,bill_to.name', 'receipt-0.txt,Vendor 0,100,Imported Customer', 'receipt-1.txt,Vendor 1,not a number,X', 'missing.txt,V,1,Y'].join('\n');
  await page.getByLabel('Annotations file').setInputFiles({ name: 'truth.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  const preview = page.getByRole('table', { name: 'Import preview' });
  await expect(page.getByText('1 row matched · 1 row unmatched · 1 row invalid')).toBeVisible();
  await expect(preview.getByRole('row', { name: /receipt-0\.txt/ })).toContainText('will be updated');
  await expect(preview.getByRole('row', { name: /receipt-1\.txt/ })).toContainText(/invalid.*2\.total/);
  await expect(preview.getByRole('row', { name: /missing\.txt/ })).toContainText('no such document');
  await page.getByRole('region', { name: 'Documents', exact: true }).screenshot({ path: screenshotPath('import-preview') });
  // The preview wrote nothing.
  const before = await rest('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[0].id}`);
  expect(before.annotation.bill_to).toEqual({ name: 'Customer 0' });

  await page.getByRole('button', { name: 'Apply 1 row' }).click();
  await expect(page.getByText('1 annotation updated from truth.csv; 2 rows refused.')).toBeVisible();
  const after = await rest('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[0].id}`);
  expect(after.annotation).toMatchObject({ vendor: 'Vendor 0', total: 100, bill_to: { name: 'Imported Customer' } });
  // The figures follow: every iteration now reads receipt-0's customer wrong.
  await expect(page.getByRole('grid', { name: 'Matrix' }).getByRole('gridcell', { name: /^receipt-0\.txt × flaky-model/ })).not.toHaveText('1.00');
});
