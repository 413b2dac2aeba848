// The pages of the seeded 1,000 x 5 evaluation read only what they show: the evaluation page its summary (no
// document, no file content), a document page that document's prediction in one call by its id (no paging through
// the iteration's predictions). Counted from the tRPC calls the browser sends.
import { expect, test, type Page } from '@playwright/test';
import type { LargeEvaluation } from './seed.js';
import { rest, signIn } from './support.js';

const large = (): LargeEvaluation => JSON.parse(process.env.E2E_LARGE_EVAL ?? 'null');

/** Every tRPC procedure the page calls from now on, with its input (`httpBatchLink` GETs: `/trpc/a,b?batch=1&input=`). */
function recordCalls(page: Page): Array<{ path: string; input: unknown }> {
  const calls: Array<{ path: string; input: unknown }> = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/trpc/')) return;
    const paths = decodeURIComponent(url.pathname.slice('/trpc/'.length)).split(',');
    const inputs = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, unknown>;
    paths.forEach((path, i) => calls.push({ path, input: inputs[String(i)] }));
  });
  return calls;
}

test('the evaluation page reads its summary, not the whole evaluation', async ({ page }) => {
  const evaluation = large();
  await signIn(page);
  const calls = recordCalls(page);
  await page.goto(new URL(`/evals/${evaluation.id}`, page.url()).href);
  await expect(page.getByText('1,000 documents · 5 iterations')).toBeVisible();
  await expect(page.getByRole('heading', { name: evaluation.name })).toBeVisible();
  const paths = calls.map((call) => call.path);
  expect(paths).toContain('evals.getSummary');
  expect(paths).not.toContain('evals.get');
  expect(paths).not.toContain('evals.iterations.listSummaries');
});

test("a document's page reads its prediction in one call, by the document's id", async ({ page }) => {
  const evaluation = large();
  const last = evaluation.iterations.at(-1)!;
  // The second-to-last document: far past any first page, and read wrong (vendor and currency) by the last model.
  const documents = await rest('GET', `/v1/evals/${evaluation.id}/documents?order=desc&limit=2`);
  const document = documents.data[1];
  const iteration = await rest('GET', `/v1/evals/${evaluation.id}/iterations/${last.id}`);
  const expected: number = iteration.metric_results.item_metrics.find((m: { id: string }) => m.id === document.id).similarity;
  expect(expected).toBeLessThan(1);

  await signIn(page);
  const calls = recordCalls(page);
  await page.goto(new URL(`/evals/${evaluation.id}/documents/${document.id}`, page.url()).href);
  await expect(page.getByText(`document similarity ${expected.toFixed(3)}`)).toBeVisible();
  // The iterations come with the evaluation's summary the page reads anyway.
  expect(calls.map((call) => call.path)).not.toContain('evals.iterations.listSummaries');
  const predictions = calls.filter((call) => call.path === 'evals.iterations.predictions');
  expect(predictions).toEqual([
    { path: 'evals.iterations.predictions', input: { evaluation_id: evaluation.id, iteration_id: last.id, document_ids: [document.id], limit: 1 } },
  ]);
});
