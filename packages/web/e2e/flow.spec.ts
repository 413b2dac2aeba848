// The main path of a person evaluating a model: create an evaluation from files, run two models, watch the runs,
// compare them, correct the ground truth of a document and see the metrics follow, download the results.
import { Buffer } from 'node:buffer';
import { parse } from 'csv-parse/sync';
import { expect, test, type Page } from '@playwright/test';
import { invoiceSchema, invoiceText, wrongCurrency } from './fake-provider.js';
import { invoice, rest, screenshotPath, signIn } from './support.js';

// The tests run in file order (one worker) on one evaluation, but not in serial mode: a failed step does not hide
// what the later ones would find. The evaluation is found by its name (each run has a fresh store).
const NAME = 'Invoices e2e';
const files = [0, 1, 2].map((i) => ({
  name: `invoice-${i}.txt`,
  mimeType: 'text/plain',
  buffer: Buffer.from(invoiceText(invoice(i))),
}));
/** The path of the evaluation the first test created, found over REST. */
async function evaluationPathOf(): Promise<string> {
  const list = await rest('GET', `/v1/evals?name=${encodeURIComponent(NAME)}`);
  expect(list.data, `the evaluation "${NAME}" (created by the first test)`).toHaveLength(1);
  return `/evals/${list.data[0].id}`;
}

/** The leaderboard row of the iteration run with `model`. */
const leaderboardRow = (page: Page, model: string) =>
  page.getByRole('table', { name: 'Leaderboard' }).getByRole('row').filter({ hasText: model });

/**
 * Starts an iteration of `model` from the Run form and watches its progress bar. The bar may leave the page as soon
 * as the run ends (a run of 3 small documents takes a few tens of milliseconds), so every value it shows is recorded
 * in the page by a MutationObserver set up before the start; the run must have shown 100, never going back.
 * Known gap (webapp, 23:30): RunSection renders the bar only while `running !== null` and the final event sets the
 * last progress and `running = null` together, so a fast run's bar goes from 0 to gone and this fails (most runs).
 * The fix is in packages/web/src: keep the bar, at its final value, after the run ends (until the next start).
 */
async function runIteration(page: Page, model: string): Promise<void> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { progressSeen: number[] }).progressSeen = seen;
    const record = () => {
      for (const bar of document.querySelectorAll('[role="progressbar"][aria-label="Progress"]')) {
        const value = Number(bar.getAttribute('aria-valuenow'));
        if (seen.at(-1) !== value) seen.push(value);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
  });
  await page.getByRole('button', { name: 'Run iteration' }).click();
  await page.getByRole('combobox', { name: 'Model' }).fill(model);
  await page.getByRole('button', { name: 'Start' }).click();
  const seen = () => page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
  // Soft: a bar that does not show 100 fails the test, and the run it watched still serves the next steps.
  await expect.soft(leaderboardRow(page, model)).toHaveCount(1, { timeout: 30_000 });
  await expect.soft.poll(seen, { message: `the progress bar of the ${model} run shows 100` }).toContain(100);
  const values = await seen();
  expect.soft(values).toEqual([...values].sort((a, b) => a - b));
  await expect(leaderboardRow(page, model)).toHaveCount(1);
}

test('create an evaluation with 3 files', async ({ page }) => {
  await signIn(page);
  await page.getByRole('button', { name: 'New evaluation' }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill(NAME);
  await page.getByRole('textbox', { name: 'JSON schema' }).fill(JSON.stringify(invoiceSchema));
  await page.getByLabel('Files').setInputFiles(files);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { level: 1, name: NAME })).toBeVisible();
  const evaluationPath = new URL(page.url()).pathname;
  expect(evaluationPath).toBe(await evaluationPathOf());
  expect(evaluationPath).toMatch(/^\/evals\/[^/]+$/);
  // The server holds the 3 documents.
  const id = evaluationPath.split('/')[2]!;
  const documents = await rest('GET', `/v1/evals/${id}/documents`);
  expect(documents.data.map((d: { mime_data?: { filename: string }; filename?: string }) => d.mime_data?.filename ?? d.filename).sort())
    .toEqual(files.map((f) => f.name));
});

test('annotations are set, then two runs are watched to 100 %', async ({ page }) => {
  const evaluationPath = await evaluationPathOf();
  const id = evaluationPath.split('/')[2]!;
  // Ground truth for the uploaded files (the create form uploads files; annotations are edited afterwards).
  const documents = await rest('GET', `/v1/evals/${id}/documents`);
  for (const document of documents.data) {
    const name: string = document.mime_data?.filename ?? document.filename;
    const i = Number(/invoice-(\d+)/.exec(name)![1]);
    await rest('PUT', `/v1/evals/${id}/documents/${document.id}`, { annotation: invoice(i) });
  }
  await signIn(page, evaluationPath);
  await runIteration(page, 'fake-good');
  await runIteration(page, 'fake-bad');
  await expect(leaderboardRow(page, 'fake-good')).toContainText('1.000');
  await expect(page.getByRole('grid', { name: 'Matrix' }).locator('[aria-label*=" × "]')).toHaveCount(6);
  await page.screenshot({ path: screenshotPath('evaluation') });
});

test('compare two iterations: the regressed field comes first', async ({ page }) => {
  const evaluationPath = await evaluationPathOf();
  await signIn(page, evaluationPath);
  const id = evaluationPath.split('/')[2]!;
  const iterations = await rest('GET', `/v1/evals/${id}/iterations?view=summary`);
  const good = iterations.data.find((i: any) => i.inference_settings.model === 'fake-good');
  const bad = iterations.data.find((i: any) => i.inference_settings.model === 'fake-bad');
  await page.goto(new URL(`${evaluationPath}/compare?base=${good.id}&head=${bad.id}`, page.url()).href);
  const deltas = page.getByRole('table', { name: 'Field deltas' });
  await expect(deltas).toBeVisible();
  // Row 0 is the header: the first data row is the field fake-bad reads wrong (currency), before the unchanged ones.
  await expect(deltas.getByRole('row').nth(1)).toContainText('currency');
  await expect(deltas.getByRole('row')).toHaveCount(4);
  await expect(page.getByRole('list', { name: 'Regressed documents' }).getByRole('listitem')).toHaveCount(3);
  await expect(page.getByRole('img', { name: /^Field deltas chart/ })).toBeVisible();
  await page.screenshot({ path: screenshotPath('compare') });
});

test('correcting a field of a document changes the iteration mean in the leaderboard', async ({ page }) => {
  const evaluationPath = await evaluationPathOf();
  await signIn(page, evaluationPath);
  const row = leaderboardRow(page, 'fake-bad');
  const id = evaluationPath.split('/')[2]!;
  const meanOf = async () =>
    (await rest('GET', `/v1/evals/${id}/iterations?view=summary`)).data.find((i: any) => i.inference_settings.model === 'fake-bad')
      .metric_results.mean_similarity as number;
  const before = await meanOf();
  await expect(row).toContainText(before.toFixed(3));
  const documents = await rest('GET', `/v1/evals/${id}/documents`);
  const first = documents.data.find((d: any) => (d.mime_data?.filename ?? d.filename) === 'invoice-0.txt');
  await page.goto(new URL(`${evaluationPath}/documents/${first.id}`, page.url()).href);
  await expect(page.getByRole('heading', { name: 'invoice-0.txt' })).toBeVisible();
  // Annotation and prediction side by side: fake-bad's wrong currency is on the page next to the right one.
  await expect(page.getByRole('table', { name: 'Fields' })).toContainText('currency');
  await page.screenshot({ path: screenshotPath('document') });
  await page.getByRole('button', { name: 'Edit ground truth' }).click();
  // The raw JSON editor, the schema form's fallback (the form itself: walk.spec.ts).
  await page.getByRole('radio', { name: 'JSON' }).check();
  const editor = page.getByRole('textbox', { name: 'Annotation' });
  // An annotation of the wrong type is refused with the path at fault; nothing is stored.
  await editor.fill(JSON.stringify({ ...invoice(0), total: 'a lot' }));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('total');
  expect((await rest('GET', `/v1/evals/${id}/documents/${first.id}`)).annotation).toEqual(invoice(0));
  // The truth fake-bad read: that document now scores 1 for fake-bad, and fake-bad's mean goes up.
  const corrected = { ...invoice(0), currency: wrongCurrency(invoice(0).currency) };
  await editor.fill(JSON.stringify(corrected));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toHaveCount(0);
  const stored = await rest('GET', `/v1/evals/${id}/documents/${first.id}`);
  expect(stored.annotation).toEqual(corrected);
  const after = await meanOf();
  expect(after).toBeGreaterThan(before);
  await page.goto(new URL(evaluationPath, page.url()).href);
  await expect(row).toContainText(after.toFixed(3));
  await expect(row).not.toContainText(before.toFixed(3));
});

test('download the CSV of an iteration', async ({ page }) => {
  const evaluationPath = await evaluationPathOf();
  await signIn(page, evaluationPath);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).or(page.getByRole('link', { name: 'Download CSV' })).first().click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.csv$/);
  const path = await download.path();
  const { readFileSync } = await import('node:fs');
  const rows: Record<string, string>[] = parse(readFileSync(path), { columns: true, bom: true });
  // One row per document x leaf field: 3 documents x 3 fields.
  expect(rows).toHaveLength(9);
  expect(new Set(rows.map((r) => r.field))).toEqual(new Set(['vendor', 'total', 'currency']));
  expect(new Set(rows.map((r) => r.filename))).toEqual(new Set(files.map((f) => f.name)));
});
