// The evaluation page as a workspace: the charts (mean over iterations, score distribution, accuracy vs cost, the
// field x iteration heatmap), the matrix's filters kept in the URL (a shared link opens the same view), a failed
// document shown as failed, a field's scores in the cells, and the headers standing over their columns. Seeded over
// REST: 4 documents, 3 imported iterations (the third fails on one document). The screenshots of these views are the
// walk's (walk.spec.ts), on the sample.
import { Buffer } from 'node:buffer';
import { expect, test, type Page } from '@playwright/test';
import { rest, signIn } from './support.js';

const text = (content: string) => `data:text/plain;base64,${Buffer.from(content).toString('base64')}`;
const schema = {
  type: 'object',
  properties: { vendor: { type: 'string' }, total: { type: 'number' }, bill_to: { type: 'object', properties: { name: { type: 'string' } } } },
};
const truth = (i: number) => ({ vendor: `Vendor ${i}`, total: 100 + i, bill_to: { name: `Customer ${i}` } });
const cost = (value: number) => ({ api_cost: { value, currency: 'USD' } });

async function seed(name = 'Workspace e2e') {
  const documents = [0, 1, 2, 3].map((i) => ({ mime_data: { filename: `receipt-${i}.txt`, url: text(`receipt ${i}`) }, annotation: truth(i) }));
  return rest('POST', '/v1/evals', {
    name,
    json_schema: schema,
    documents,
    iterations: [
      // "draft": the customer's name wrong on receipts 0 and 3, half right on receipt-1; the vendor wrong on receipt-2.
      {
        inference_settings: { model: 'draft-model' },
        predictions: [0, 1, 2, 3].map((i) => ({ prediction: { ...truth(i), vendor: i === 2 ? 'Wrong' : `Vendor ${i}`, bill_to: { name: ['Someone', 'Customer', 'Customer 2', 'Someone'][i] } }, metadata: cost(0.002) })),
      },
      // "better": every field right but receipt-3's customer.
      {
        inference_settings: { model: 'better-model' },
        predictions: [0, 1, 2, 3].map((i) => ({ prediction: { ...truth(i), bill_to: { name: i === 3 ? 'Someone' : `Customer ${i}` } }, metadata: cost(0.004) })),
      },
      // "flaky": right, but receipt-1's extraction failed.
      {
        inference_settings: { model: 'flaky-model' },
        predictions: [0, 1, 2, 3].map((i) => (i === 1 ? { prediction: {}, metadata: { error: 'the provider timed out' } } : { prediction: truth(i), metadata: cost(0.001) })),
      },
    ],
  });
}

// Several views a test, on a shared machine: more than the default minute.
test.describe.configure({ timeout: 180_000 });

const cellTexts = (page: Page, name: RegExp) => page.getByRole('grid', { name: 'Matrix' }).getByRole('gridcell', { name }).allTextContents();

test('the charts: mean over iterations, score distribution, accuracy vs cost, fields x iterations', async ({ page }) => {
  const evaluation = await seed();
  await signIn(page, `/evals/${evaluation.id}`);
  await expect(page.getByText('4 documents · 3 iterations')).toBeVisible();

  const mean = page.getByRole('figure', { name: /Mean similarity over iterations/ });
  await expect(mean.locator('svg.recharts-surface').first()).toBeVisible();
  await expect(mean.locator('.recharts-line')).toHaveCount(2);
  await expect(mean).toContainText('3 iterations, oldest first');

  const distribution = page.getByRole('figure', { name: /Document scores per iteration/ });
  await expect(distribution.locator('.recharts-bar-rectangle').first()).toBeVisible();
  // Its data table: flaky-model has one failed document, the others none.
  await distribution.getByText('Data of “Document scores per iteration”').click();
  const failedRow = distribution.getByRole('table').getByRole('row', { name: /^failed/ });
  await expect(failedRow.getByRole('cell')).toHaveText(['0', '0', '1']);
  await distribution.getByText('Data of “Document scores per iteration”').click();

  const versusCost = page.getByRole('figure', { name: /Accuracy vs cost/ });
  await expect(versusCost.locator('.recharts-scatter-symbol')).toHaveCount(3);
  // Means count a failed document as 0 (issue 25): flaky-model's one failure puts better-model first.
  await expect(versusCost).toContainText(/best mean 0\.944 \(better-model\)/);

  const heatmap = page.getByRole('table', { name: 'Fields × iterations' });
  // Imported iterations have no duration: that chart says so rather than plot zeros.
  await expect(page.getByRole('figure', { name: /Accuracy vs duration/ })).toContainText('No iteration has a duration');
  await expect(heatmap.getByRole('row', { name: /bill_to\.name/ }).getByRole('cell')).toHaveText(['0.639', '0.833', '0.750']);
  // No likelihoods in these predictions: no reliability diagram.
  await expect(page.getByRole('figure', { name: /Reliability diagram/ })).toHaveCount(0);


  // A heatmap cell opens the matrix on that field, worst first in that iteration.
  await heatmap.getByRole('link', { name: /^bill_to\.name in better-model: 0\.833; open its documents/ }).click();
  await expect(page).toHaveURL(/field=bill_to\.name/);
  await expect(page.getByLabel('Field', { exact: true })).toHaveValue('bill_to.name');
  const documents = page.getByRole('grid', { name: 'Matrix' }).getByRole('rowheader');
  await expect(documents.first()).toHaveText('receipt-3.txt');
  expect(await cellTexts(page, /^receipt-3\.txt × better-model/)).toEqual(['0.33']);
  expect(await cellTexts(page, /^receipt-0\.txt × draft-model/)).toEqual(['0.33']);
});

test('matrix filters live in the URL; a failed document shows as failed; headers stand over their columns', async ({ page, context }) => {
  const evaluation = await seed();
  await signIn(page, `/evals/${evaluation.id}`);
  const matrix = page.getByRole('grid', { name: 'Matrix' });
  await expect(matrix.getByRole('rowheader')).toHaveCount(4);
  // The failed document is "failed", not "–".
  await expect(matrix.getByRole('gridcell', { name: 'receipt-1.txt × flaky-model (' + evaluation.iterations[2].id + '): failed' })).toHaveText('failed');

  // Each header starts where its column's cells start.
  const headers = matrix.getByRole('columnheader');
  const firstRow = matrix.getByRole('row').nth(1);
  const cells = firstRow.locator('[role="rowheader"], [role="gridcell"]');
  for (let i = 0; i < 4; i++) {
    const header = (await headers.nth(i).boundingBox())!;
    const cell = (await cells.nth(i).boundingBox())!;
    expect(Math.abs(header.x - cell.x)).toBeLessThan(1);
    expect(Math.abs(header.width - cell.width)).toBeLessThan(1);
  }

  await page.getByLabel('Outcome').selectOption('failed');
  await expect(matrix.getByRole('rowheader')).toHaveText(['receipt-1.txt']);
  await expect(page).toHaveURL(/outcome=failed/);
  await page.getByLabel('Outcome').selectOption('');

  // A threshold that splits the rows: only the document flaky-model failed (a failure counts as 0) is below 0.5.
  await page.getByLabel('Score below').fill('0.5');
  await expect(matrix.getByRole('rowheader')).toHaveText(['receipt-1.txt']);
  await page.getByLabel('Score below').fill('0.9');
  await expect(matrix.getByRole('rowheader')).toHaveText(['receipt-0.txt', 'receipt-1.txt', 'receipt-2.txt', 'receipt-3.txt']);
  await page.getByLabel('File name').fill('2');
  await expect(matrix.getByRole('rowheader')).toHaveText(['receipt-2.txt']);
  await page.getByLabel('File name').fill('');
  await page.getByLabel('Score below').fill('');
  await expect(matrix.getByRole('rowheader')).toHaveCount(4);

  // The shared link: failed documents, sorted by flaky-model's column, opens as it was in another tab.
  await page.getByLabel('Outcome').selectOption('failed');
  await matrix.getByRole('columnheader', { name: /^Sort by flaky-model/ }).getByRole('button').click();
  await expect(page).toHaveURL(new RegExp(`sort=${evaluation.iterations[2].id}`));
  const shared = page.url();
  // sessionStorage holds the key per tab: the other tab signs in, on the shared address.
  const other = await context.newPage();
  const { pathname, search } = new URL(shared);
  await signIn(other, pathname + search);
  const otherMatrix = other.getByRole('grid', { name: 'Matrix' });
  await expect(otherMatrix.getByRole('rowheader')).toHaveText(['receipt-1.txt']);
  await expect(other.getByLabel('Outcome')).toHaveValue('failed');
  await expect(otherMatrix.getByRole('columnheader', { name: /^Sort by flaky-model/ })).toHaveAttribute('aria-sort', 'ascending');
  await other.close();
});

test('from compare, a field links to its documents worst first; a document shows iterations side by side', async ({ page }) => {
  const evaluation = await seed('Drill-down e2e');
  const [draft, better, flaky] = evaluation.iterations.map((iteration: { id: string }) => iteration.id);
  await signIn(page, '/');
  // The list's score column: the best mean of the evaluation's iterations.
  const row = page.getByRole('table').getByRole('row', { name: /Drill-down e2e/ });
  await expect(row.getByRole('cell').nth(3)).toHaveText('0.944');

  await page.goto(new URL(`/evals/${evaluation.id}/compare?base=${better}&head=${draft}`, page.url()).href);
  await page.getByRole('table', { name: 'Field deltas' }).getByRole('link', { name: 'bill_to.name: its documents, worst first' }).click();
  await expect(page).toHaveURL(/field=bill_to\.name/);
  const behind = page.getByRole('table', { name: 'Documents behind bill_to.name' });
  await expect(behind.getByRole('rowheader')).toHaveText(['receipt-0.txt', 'receipt-1.txt']);
  await expect(behind.getByRole('row', { name: /receipt-0/ }).getByRole('cell')).toHaveText(['1.000', '0.333', '-0.667']);
  await expect(page.getByText('2 more documents scored on this field moved by less than 0.01.')).toBeVisible();

  // The worst one opens with both iterations side by side; a third joins them.
  await behind.getByRole('link', { name: 'receipt-0.txt' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-0.txt');
  const side = page.getByRole('table', { name: 'Side by side' });
  await expect(side.getByRole('columnheader')).toHaveCount(4);
  // The choice goes through the URL (react-router's navigation), then back to the box: click, then wait for it.
  await page.getByRole('checkbox', { name: /flaky-model/ }).click();
  await expect(page.getByRole('checkbox', { name: /flaky-model/ })).toBeChecked();
  await expect(side.getByRole('columnheader')).toHaveCount(5);
  await expect(page).toHaveURL(new RegExp(`compare=${draft}(,|%2C)${better}(,|%2C)${flaky}`));
  const name = side.getByRole('row', { name: /bill_to\.name/ });
  // Ground truth, then draft (differs: highlighted, its similarity written), better and flaky (right).
  await expect(name.getByRole('cell').nth(0)).toHaveText('Customer 0');
  await expect(name.getByRole('cell').nth(1)).toHaveClass(/differs/);
  await expect(name.getByRole('cell').nth(1)).toContainText('(0.33)');
  await expect(name.getByRole('cell').nth(2)).not.toHaveClass(/differs/);
  await expect(name.getByRole('cell').nth(3)).toHaveText('Customer 0');
});

test('add two documents to an evaluation; fix a ground truth starting from a prediction', async ({ page }) => {
  const evaluation = await seed('Dataset e2e');
  const better = evaluation.iterations[1].id;
  await signIn(page, `/evals/${evaluation.id}`);
  await page.getByRole('button', { name: 'Add documents' }).click();
  await page.getByLabel('Files to add').setInputFiles([
    { name: 'late-1.txt', mimeType: 'text/plain', buffer: Buffer.from('receipt late 1') },
    { name: 'late-2.txt', mimeType: 'text/plain', buffer: Buffer.from('receipt late 2') },
  ]);
  await page.getByRole('button', { name: 'Add 2 files' }).click();
  await expect(page.getByText('2 documents added.')).toBeVisible();
  await expect(page.getByText('6 documents · 3 iterations')).toBeVisible();
  const matrix = page.getByRole('grid', { name: 'Matrix' });
  await expect(matrix.getByRole('rowheader')).toHaveCount(6);
  await expect(matrix.getByRole('gridcell', { name: /^late-2\.txt × better-model.*: no prediction$/ })).toHaveText('–');

  // receipt-3's customer: better-model read "Someone"; the ground truth becomes its reading, corrected.
  await matrix.getByRole('link', { name: 'receipt-3.txt' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-3.txt');
  await page.getByLabel('Iteration', { exact: true }).selectOption(better);
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  // The raw JSON editor, the form's fallback (the form itself: walk.spec.ts).
  await page.getByRole('radio', { name: 'JSON' }).check();
  await page.getByRole('button', { name: "Start from this iteration's prediction" }).click();
  const editor = page.getByLabel('Annotation');
  await expect(editor).toHaveValue(/"name": "Someone"/);
  await editor.fill((await editor.inputValue()).replace('"Someone"', '"Someone Else"'));
  await page.getByRole('button', { name: 'Save' }).click();
  const fields = page.getByRole('table', { name: 'Fields' });
  await expect(fields.getByRole('row', { name: /bill_to\.name/ }).getByRole('cell').first()).toHaveText('Someone Else');
});
