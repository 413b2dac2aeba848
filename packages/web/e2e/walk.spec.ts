// Issue 28's walk through the workspace, in the order of its "Done when", as a person would, on the sample the empty
// list offers: load the sample; name an iteration (its page: summary, schema, run again with changes); fix a ground
// truth through the form generated from the schema, starting from a prediction; import an annotations CSV with its
// preview; add two documents; a document with three iterations side by side; from compare, a regressed field to its
// worst documents; the matrix filtered to failed documents, its URL opened in another page; every chart; axe on every
// page, light and dark. Written against the "Load the sample" button, not the sample's contents: what the walk needs
// to know of them (file names, the schema's fields, the failed documents) it reads over REST.
import { Buffer } from 'node:buffer';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { rest, screenshotPath, signIn } from './support.js';

test.describe.configure({ timeout: 600_000 });

type Schema = { properties?: Record<string, { type?: unknown; enum?: unknown; items?: { properties?: Record<string, unknown> } }> };
type Summary = { id: string; name: string | null; status: string; inference_settings: { model: string } };

/** The first top-level field of the schema that is a plain string (no enum): what the walk writes. */
function stringField(schema: Schema): string {
  const entry = Object.entries(schema.properties ?? {}).find(([, field]) => field.type === 'string' && field.enum === undefined);
  if (!entry) throw new Error('the sample has no top-level string field');
  return entry[0];
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`);
}

const iterations = async (evaluationId: string) => (await rest<{ data: Summary[] }>('GET', `/v1/evals/${evaluationId}/iterations?view=summary`)).data;

/** What the steps of the walk hand on to the next ones. */
interface Walk {
  page: Page;
  context: BrowserContext;
  evaluationId: string;
  evaluationPath: string;
  sample: { name: string; json_schema: Schema };
  /** The sample's iterations. */
  imported: Summary[];
  /** The pages axe checks at the end. */
  axePages: Array<[string, string]>;
  /** The iteration the walk names, the one it runs again, the field it writes. */
  named?: Summary;
  third?: Summary;
  field?: string;
  documents?: Array<{ id: string; mime_data: { filename: string } }>;
  /** The document whose ground truth the walk fixes. */
  fixed?: { id: string; mime_data: { filename: string } };
}

test('the walk: sample, names, ground truth, import, documents, side by side, drill-down, filters, charts, axe', async ({ page, context }) => {
  const walk = await loadTheSample(page, context);
  await nameAnIteration(walk);
  await fixAGroundTruth(walk);
  await importAnnotations(walk);
  await addTwoDocuments(walk);
  await sideBySide(walk);
  await compareToWorstDocuments(walk);
  await filterTheMatrix(walk);
  await seeEachChart(walk);
  await axeOnEveryPage(walk);
});

async function loadTheSample(page: Page, context: BrowserContext): Promise<Walk> {
  // 1. Load the sample from the empty list's button.
  await signIn(page, '/');
  await page.getByRole('button', { name: /load the sample/i }).click();
  await expect(page).toHaveURL(/\/evals\/[^/?]+$/);
  const evaluationId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
  const evaluationPath = `/evals/${encodeURIComponent(evaluationId)}`;
  const sample = await rest<{ name: string; json_schema: Schema }>('GET', `/v1${evaluationPath}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(sample.name);
  const imported = await iterations(evaluationId);
  expect(imported.length).toBeGreaterThanOrEqual(2);
  const leaderboard = page.getByRole('table', { name: 'Leaderboard' });
  await expect(leaderboard.getByRole('row')).toHaveCount(imported.length + 1);

  return { page, context, evaluationId, evaluationPath, sample, imported, axePages: [['/', 'list'], [evaluationPath, 'evaluation']] };
}

async function nameAnIteration(walk: Walk): Promise<void> {
  const { page, evaluationId, evaluationPath, sample, imported, axePages } = walk;
  // 2. Name an iteration, on its page: summary, schema against the evaluation's, then "run again with changes".
  const named = imported[0]!;
  walk.named = named;
  await page.goto(new URL(`${evaluationPath}/iterations/${encodeURIComponent(named.id)}`, page.url()).href);
  await expect(page.getByRole('region', { name: 'Summary' })).toContainText(named.inference_settings.model);
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Walk: baseline');
  await page.getByLabel('Description').fill('Named by the walk.');
  await page.getByRole('textbox', { name: 'Tags' }).fill('walk, baseline');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Walk: baseline');
  await expect(page.getByRole('list', { name: 'Tags' }).getByRole('listitem')).toHaveText(['walk', 'baseline']);
  await expect(page.getByRole('region', { name: 'Schema' })).toBeVisible();
  axePages.push([`${evaluationPath}/iterations/${encodeURIComponent(named.id)}`, 'iteration']);

  // Run again with changes: prefilled from this iteration; a missing model is said in the page; the served fake model
  // and a field's description changed start a third iteration, whose page lists that change.
  await page.getByRole('button', { name: 'Run again with changes' }).click();
  const again = page.getByRole('form', { name: 'Run again with changes' });
  await expect(again.getByLabel('Name', { exact: true })).toHaveValue('Walk: baseline (again)');
  await expect(again.getByLabel('Model')).toHaveValue(named.inference_settings.model);
  await again.getByLabel('Model').fill('');
  await again.getByRole('button', { name: 'Start' }).click();
  await expect(again.getByRole('alert')).toContainText('Choose a model');
  await again.getByLabel('Model').fill('fake-good');
  // A new field is refused (the structure is fixed once an evaluation has iterations): the server's reason, in the
  // page. A field's description (its prompt) may change.
  const schemaBox = again.getByLabel('JSON schema');
  const original = JSON.parse(await schemaBox.inputValue()) as Schema & { properties: Record<string, Record<string, unknown>> };
  await schemaBox.fill(JSON.stringify({ ...original, properties: { ...original.properties, walk_note: { type: 'string' } } }, null, 2));
  await again.getByRole('button', { name: 'Start' }).click();
  await expect(again.getByRole('alert')).toContainText('Only prompts');
  const field = stringField(sample.json_schema);
  walk.field = field;
  await schemaBox.fill(JSON.stringify({ ...original, properties: { ...original.properties, [field]: { ...original.properties[field], description: 'As printed, without the legal form' } } }, null, 2));
  await page.screenshot({ path: screenshotPath('iteration'), fullPage: true });
  await again.getByRole('button', { name: 'Start' }).click();
  await expect(page).toHaveURL(new RegExp(`${evaluationPath}$`));
  let third: Summary | undefined;
  await expect
    .poll(async () => {
      third = (await iterations(evaluationId)).find((iteration) => iteration.name === 'Walk: baseline (again)');
      return third?.status;
    }, { timeout: 120_000 })
    .toMatch(/^(completed|failed)$/);
  await page.goto(new URL(`${evaluationPath}/iterations/${encodeURIComponent(third!.id)}`, page.url()).href);
  // The sample's own description of the field (if it has one) is the diff's "before".
  const before = original.properties[field]?.description;
  const was = typeof before === 'string' ? JSON.stringify(before) : '(none)';
  await expect(page.getByRole('table', { name: 'Schema differences' }).getByRole('row')).toHaveText(['FieldChangeDetail', `${field}changeddescription: ${was} → "As printed, without the legal form"`]);

  walk.third = third!;
}

async function fixAGroundTruth(walk: Walk): Promise<void> {
  const { page, evaluationPath, axePages } = walk;
  const named = walk.named!;
  const field = walk.field!;
  // 3. Fix a ground truth through the generated form, starting from a prediction.
  const documents = (await rest<{ data: Array<{ id: string; mime_data: { filename: string } }> }>('GET', `/v1${evaluationPath}/documents?limit=100`)).data;
  const fixed = documents[0]!;
  walk.documents = documents;
  walk.fixed = fixed;
  await page.goto(new URL(`${evaluationPath}/documents/${encodeURIComponent(fixed.id)}`, page.url()).href);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(fixed.mime_data.filename);
  await page.getByLabel('Iteration', { exact: true }).selectOption(named.id);
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  const form = page.locator('form.schema-form');
  await expect(form).toBeVisible();
  await page.getByRole('button', { name: "Start from this iteration's prediction" }).click();
  // An array of objects is a table: a row added from the keyboard, then removed.
  const tables = form.locator('fieldset.table-field');
  if ((await tables.count()) > 0) {
    const table = tables.first().getByRole('table');
    const rows = await table.locator('tbody tr').count();
    await tables.first().getByRole('button', { name: /^Add row to/ }).focus();
    await page.keyboard.press('Enter');
    await expect(table.locator('tbody tr')).toHaveCount(rows + 1);
    await table.getByRole('button', { name: `Remove row ${rows + 1}` }).click();
    await expect(table.locator('tbody tr')).toHaveCount(rows);
  }
  await form.locator(`#annotation_${field}`).fill('Corrected in the walk');
  await page.screenshot({ path: screenshotPath('ground-truth-form'), fullPage: true });
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('button', { name: 'Edit ground truth' })).toBeVisible();
  expect((await rest<{ annotation: Record<string, unknown> }>('GET', `/v1${evaluationPath}/documents/${fixed.id}`)).annotation[field]).toBe('Corrected in the walk');
  axePages.push([`${evaluationPath}/documents/${encodeURIComponent(fixed.id)}`, 'document']);

}

async function importAnnotations(walk: Walk): Promise<void> {
  const { page, evaluationPath } = walk;
  const documents = walk.documents!;
  const field = walk.field!;
  // 4. Import an annotations CSV: the preview (one row matched, one unmatched) writes nothing; Apply writes the row.
  const imported1 = documents.at(-1)!;
  await page.goto(new URL(evaluationPath, page.url()).href);
  await page.getByRole('button', { name: 'Import annotations' }).click();
  const csv = [`filename,${field}`, `${imported1.mime_data.filename},Imported by the walk`, 'missing.txt,nobody'].join('\n');
  await page.getByLabel('Annotations file').setInputFiles({ name: 'walk.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByText('1 row matched · 1 row unmatched · 0 rows invalid')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Import preview' }).getByRole('row', { name: /missing\.txt/ })).toContainText('no such document');
  await page.getByRole('region', { name: 'Documents', exact: true }).screenshot({ path: screenshotPath('import-preview') });
  expect((await rest<{ annotation: Record<string, unknown> }>('GET', `/v1${evaluationPath}/documents/${imported1.id}`)).annotation[field]).not.toBe('Imported by the walk');
  await page.getByRole('button', { name: 'Apply 1 row' }).click();
  await expect(page.getByText('1 annotation updated from walk.csv; 1 row refused.')).toBeVisible();
  expect((await rest<{ annotation: Record<string, unknown> }>('GET', `/v1${evaluationPath}/documents/${imported1.id}`)).annotation[field]).toBe('Imported by the walk');

}

async function addTwoDocuments(walk: Walk): Promise<void> {
  const { page } = walk;
  // 5. Add two documents: in the matrix, without a prediction in any iteration.
  await page.getByRole('button', { name: 'Add documents' }).click();
  await page.getByLabel('Files to add').setInputFiles([
    { name: 'walk-late-1.txt', mimeType: 'text/plain', buffer: Buffer.from('vendor: Late One\ntotal: 1\n') },
    { name: 'walk-late-2.txt', mimeType: 'text/plain', buffer: Buffer.from('vendor: Late Two\ntotal: 2\n') },
  ]);
  await page.getByRole('button', { name: 'Add 2 files' }).click();
  await expect(page.getByText('2 documents added.')).toBeVisible();
  const matrix = page.getByRole('grid', { name: 'Matrix' });
  await page.getByLabel('File name').fill('walk-late');
  await expect(matrix.getByRole('rowheader')).toHaveText(['walk-late-1.txt', 'walk-late-2.txt']);
  await expect(matrix.getByRole('gridcell', { name: /^walk-late-2\.txt × Walk: baseline: no prediction$/ })).toHaveText('–');
  await page.getByLabel('File name').fill('');

}

async function sideBySide(walk: Walk): Promise<void> {
  const { page, evaluationPath, imported } = walk;
  const named = walk.named!;
  const third = walk.third!;
  const fixed = walk.fixed!;
  const field = walk.field!;
  // 6. A document with three iterations side by side, against its ground truth.
  const three = [named.id, imported[1]!.id, third!.id];
  await page.goto(new URL(`${evaluationPath}/documents/${encodeURIComponent(fixed.id)}?compare=${three.join(',')}`, page.url()).href);
  const side = page.getByRole('table', { name: 'Side by side' });
  await expect(side.getByRole('columnheader')).toHaveCount(5);
  await expect(side.getByRole('columnheader').nth(2)).toContainText('Walk: baseline');
  await expect(side.getByRole('row', { name: new RegExp(`^${field}\\b`) }).getByRole('cell').first()).toHaveText('Corrected in the walk');
  await page.getByRole('region', { name: 'Side by side' }).screenshot({ path: screenshotPath('side-by-side') });

}

async function compareToWorstDocuments(walk: Walk): Promise<void> {
  const { page, evaluationPath, imported, axePages } = walk;
  const named = walk.named!;
  // 7. Compare: a field of the deltas (worst first) opens its documents, worst first.
  const comparePath = `${evaluationPath}/compare?base=${encodeURIComponent(imported[1]!.id)}&head=${encodeURIComponent(named.id)}`;
  await page.goto(new URL(comparePath, page.url()).href);
  const worstField = page.getByRole('table', { name: 'Field deltas' }).getByRole('link', { name: /: its documents, worst first$/ }).first();
  const fieldName = (await worstField.getAttribute('aria-label'))!.replace(/: its documents, worst first$/, '');
  await worstField.click();
  await expect(page).toHaveURL(/field=/);
  await expect(page.getByRole('heading', { name: `Documents behind ${fieldName}, worst first` })).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await page.getByRole('region', { name: /Documents behind/ }).screenshot({ path: screenshotPath('compare-field-documents') });
  axePages.push([`${comparePath}&field=${encodeURIComponent(fieldName)}`, 'compare']);

}

async function filterTheMatrix(walk: Walk): Promise<void> {
  const { page, context, evaluationPath } = walk;
  const matrix = page.getByRole('grid', { name: 'Matrix' });
  // 8. The matrix filtered to failed documents; its URL opened in another page shows the same view.
  await page.goto(new URL(evaluationPath, page.url()).href);
  await expect(matrix.getByRole('rowheader').first()).toBeVisible();
  // Each header stands over its column.
  const headers = matrix.getByRole('columnheader');
  const cells = matrix.getByRole('row').nth(1).locator('[role="rowheader"], [role="gridcell"]');
  for (let i = 0; i < (await headers.count()); i++) {
    const header = (await headers.nth(i).boundingBox())!;
    const cell = (await cells.nth(i).boundingBox())!;
    expect(Math.abs(header.x - cell.x)).toBeLessThan(1);
    expect(Math.abs(header.width - cell.width)).toBeLessThan(1);
  }
  await matrix.screenshot({ path: screenshotPath('matrix') });
  const rows = (await rest<{ data: Array<{ filename: string; statuses: string[] }> }>('GET', `/v1${evaluationPath}/matrix?limit=1000`)).data;
  const failed = rows.filter((row) => row.statuses.includes('failed')).map((row) => row.filename);
  await page.getByLabel('Outcome').selectOption('failed');
  await expect(page).toHaveURL(/outcome=failed/);
  await expect(matrix.getByRole('rowheader')).toHaveCount(failed.length);
  const { pathname, search } = new URL(page.url());
  const other = await context.newPage();
  await signIn(other, pathname + search);
  await expect(other.getByLabel('Outcome')).toHaveValue('failed');
  await expect(other.getByRole('grid', { name: 'Matrix' }).getByRole('rowheader')).toHaveCount(failed.length);
  if (failed.length > 0) await expect(other.getByRole('grid', { name: 'Matrix' }).getByRole('rowheader')).toHaveText(failed);
  await other.close();
  await page.getByLabel('Outcome').selectOption('');

}

async function seeEachChart(walk: Walk): Promise<void> {
  const { page, evaluationId } = walk;
  // 9. Every chart: mean over iterations, scores per iteration, accuracy vs cost and duration, fields × iterations.
  for (const name of [/Mean similarity over iterations/, /Document scores per iteration/, /Accuracy vs cost/, /Accuracy vs duration/]) {
    await expect(page.getByRole('figure', { name })).toBeVisible();
  }
  await expect(page.getByRole('figure', { name: /Mean similarity over iterations/ }).locator('.recharts-line').first()).toBeVisible();
  await expect(page.getByRole('figure', { name: /Document scores per iteration/ }).locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(page.getByRole('table', { name: 'Fields × iterations' }).getByRole('columnheader')).toHaveCount((await iterations(evaluationId)).length + 1);
  await page.getByRole('heading', { name: 'Charts' }).scrollIntoViewIfNeeded();
  await page.getByRole('region', { name: 'Charts' }).screenshot({ path: screenshotPath('charts') });

}

async function axeOnEveryPage(walk: Walk): Promise<void> {
  const { page, axePages } = walk;
  // 10. axe on every page the walk saw (and Settings), light and dark: no serious or critical violation.
  axePages.push(['/settings', 'settings']);
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [path, name] of axePages) {
      await page.goto(new URL(path, page.url()).href);
      await expect(page.getByRole('heading', { level: 1 })).not.toHaveText('Loading…');
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
      for (const violation of await seriousViolations(page)) found.push(`${scheme} ${name}: ${violation}`);
      if (name === 'document') {
        await page.getByRole('button', { name: 'Edit ground truth' }).click();
        await expect(page.locator('form.schema-form')).toBeVisible();
        for (const violation of await seriousViolations(page)) found.push(`${scheme} ${name} (form): ${violation}`);
      }
    }
  }
  expect(found).toEqual([]);
}

// The details of the generated form on a known schema: typed inputs, the enum as a select, the nested object's field,
// line items as a table; a refusal under its field; N to the next unlabeled document. And Japanese text in the
// shipped CJK font. Seeded over REST.
const text = (content: string) => `data:text/plain;base64,${Buffer.from(content).toString('base64')}`;
const receiptSchema = {
  type: 'object',
  properties: {
    vendor: { type: 'string' },
    total: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'USD', 'JPY'] },
    bill_to: { type: 'object', properties: { name: { type: 'string' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
  },
};
const truth = (i: number) => ({ vendor: `Vendor ${i}`, total: 100 + i, currency: 'EUR', bill_to: { name: `Customer ${i}` }, line_items: [{ description: `Item ${i}`, amount: 100 + i }] });

test('the ground-truth form: typed inputs, line items as a table, a refusal under its field; N opens the next unlabeled document', async ({ page }) => {
  const evaluation = await rest('POST', '/v1/evals', {
    name: 'Walk: form',
    json_schema: receiptSchema,
    documents: [0, 1, 2, 3].map((i) => ({ mime_data: { filename: `receipt-${i}.txt`, url: text(`receipt ${i}`) }, annotation: truth(i) })),
    iterations: [{ inference_settings: { model: 'better-model' }, predictions: [0, 1, 2, 3].map((i) => ({ prediction: { ...truth(i), bill_to: { name: i === 3 ? 'Someone' : `Customer ${i}` } } })) }],
  });
  // receipt-1 and receipt-2 lose their ground truth: the keyboard flow goes from one to the other.
  for (const i of [1, 2]) await rest('PUT', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[i].id}`, { annotation: {} });
  await signIn(page, `/evals/${evaluation.id}/documents/${evaluation.documents[3].id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-3.txt');
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  const form = page.locator('form.schema-form');
  await expect(form.getByLabel('total')).toHaveAttribute('type', 'number');
  await expect(form.getByLabel('currency')).toHaveJSProperty('tagName', 'SELECT');
  await expect(form.getByLabel('name', { exact: true })).toHaveValue('Customer 3');
  const items = form.getByRole('table', { name: 'line_items' });
  await expect(items.getByRole('columnheader')).toHaveText(['#', 'description', 'amount', 'Row']);
  await page.getByRole('button', { name: "Start from this iteration's prediction" }).click();
  await expect(form.getByLabel('name', { exact: true })).toHaveValue('Someone');
  await form.getByLabel('name', { exact: true }).fill('Someone Else');
  await form.getByLabel('currency').selectOption('USD');
  await items.getByLabel('line_items row 1 description').fill('Item three');
  // A second line, typed, then moved above the first.
  await form.getByRole('button', { name: 'Add row to line_items' }).click();
  await items.getByLabel('line_items row 2 description').fill('Delivery');
  await items.getByLabel('line_items row 2 amount').fill('7.5');
  await items.getByRole('button', { name: 'Move row 2 up' }).click();
  await expect(items.getByLabel('line_items row 1 description')).toHaveValue('Delivery');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('button', { name: 'Edit ground truth' })).toBeVisible();
  const stored = await rest('GET', `/v1/evals/${evaluation.id}/documents/${evaluation.documents[3].id}`);
  expect(stored.annotation).toEqual({
    ...truth(3),
    currency: 'USD',
    bill_to: { name: 'Someone Else' },
    line_items: [{ description: 'Delivery', amount: 7.5 }, { description: 'Item three', amount: 103 }],
  });

  // A refusal of the server shows under its field: an amount that is not a number, typed as JSON.
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  await page.getByRole('radio', { name: 'JSON' }).check();
  const editor = page.getByLabel('Annotation');
  await editor.fill((await editor.inputValue()).replace('7.5', '"seven"'));
  await page.getByRole('radio', { name: 'Form' }).check();
  await page.locator('form.schema-form').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('line_items');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await expect(page.getByRole('link', { name: 'Next unlabeled document: receipt-1.txt' })).toHaveAttribute('aria-keyshortcuts', 'n');
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-1.txt');
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('receipt-2.txt');
});

test('Japanese text renders in the shipped CJK font', async ({ page }) => {
  const evaluation = await rest('POST', '/v1/evals', {
    name: 'Walk: Japanese',
    json_schema: { type: 'object', properties: { vendor: { type: 'string' } } },
    documents: [{ mime_data: { filename: 'seikyusho.txt', url: text('請求書\n株式会社山田商事\n') }, annotation: { vendor: '株式会社山田商事' } }],
  });
  await signIn(page, `/evals/${evaluation.id}/documents/${evaluation.documents[0].id}`);
  await expect(page.getByText('株式会社山田商事').first()).toBeVisible();
  // CJK text on the page brings the font's CSS (its faces, by unicode-range); the files of these characters are
  // served (under the app's Content-Security-Policy) and load. Whether the browser draws with it depends on the
  // machine's own fonts, so the faces are loaded here rather than waited for.
  await expect.poll(() => page.evaluate(() => [...document.fonts].some((font) => font.family.includes('Noto Sans JP')))).toBe(true);
  expect(await page.evaluate(async () => (await document.fonts.load('16px "Noto Sans JP"', '請求書株式会社山田商事')).length)).toBeGreaterThan(0);
  expect(await page.evaluate(() => document.fonts.check('16px "Noto Sans JP"', '請求書株式会社山田商事'))).toBe(true);
  await page.screenshot({ path: screenshotPath('document-japanese') });
});
