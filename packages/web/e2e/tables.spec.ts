// The tables sort on a header click (react-table's sorting state, through the page's React state): the matrix by an
// iteration's similarity, worst first, the document without a prediction last both ways; the leaderboard best
// mean first, then the other way on a click. Seeded over REST: 3 documents, 2 imported iterations.
import { Buffer } from 'node:buffer';
import { expect, test, type Locator } from '@playwright/test';
import { rest, signIn } from './support.js';

const text = (content: string) => `data:text/plain;base64,${Buffer.from(content).toString('base64')}`;
const texts = (cells: Locator) => cells.evaluateAll((elements) => elements.map((e) => e.textContent?.trim() ?? ''));
// An unnamed iteration shows as "model (id)": the model is what these rows are told apart by.
const modelsOf = async (cells: Locator) => (await texts(cells)).map((name) => name.replace(/ \(eval_iter_[\w-]+\)$/, ''));

test('the matrix and the leaderboard sort on a header click', async ({ page }) => {
  const schema = { type: 'object', properties: { name: { type: 'string' } } };
  const document = (name: string) => ({ mime_data: { filename: `${name}.txt`, url: text(name) }, annotation: { name } });
  // "partial" reads beta right and alpha half right; "perfect" reads both right. gamma comes after the iterations:
  // it has no prediction in either (pending).
  const seeded = await rest('POST', '/v1/evals', {
    name: 'Sorting e2e',
    json_schema: schema,
    documents: [document('beta'), document('alpha')],
    iterations: [
      { inference_settings: { model: 'partial' }, predictions: [{ prediction: { name: 'beta' } }, { prediction: { name: 'alpxx' } }] },
      { inference_settings: { model: 'perfect' }, predictions: [{ prediction: { name: 'beta' } }, { prediction: { name: 'alpha' } }] },
    ],
  });
  await rest('POST', `/v1/evals/${seeded.id}/documents`, document('gamma'));
  await signIn(page, `/evals/${seeded.id}`);

  const matrix = page.getByRole('grid', { name: 'Matrix' });
  const documents = matrix.getByRole('rowheader');
  await expect(documents).toHaveCount(3);
  const partial = matrix.getByRole('columnheader', { name: /^Sort by partial/ });
  await partial.getByRole('button').click();
  await expect(partial).toHaveAttribute('aria-sort', 'ascending');
  expect(await texts(documents)).toEqual(['alpha.txt', 'beta.txt', 'gamma.txt']);
  await partial.getByRole('button').click();
  await expect(partial).toHaveAttribute('aria-sort', 'descending');
  expect(await texts(documents)).toEqual(['beta.txt', 'alpha.txt', 'gamma.txt']);
  const documentHeader = matrix.getByRole('columnheader', { name: 'Document' });
  await documentHeader.getByRole('button').click();
  await expect(documentHeader).toHaveAttribute('aria-sort', 'ascending');
  await expect(partial).toHaveAttribute('aria-sort', 'none');
  expect(await texts(documents)).toEqual(['alpha.txt', 'beta.txt', 'gamma.txt']);

  const leaderboard = page.getByRole('table', { name: 'Leaderboard' });
  const mean = leaderboard.getByRole('columnheader', { name: 'Mean similarity' });
  const models = leaderboard.locator('tbody tr td:first-child strong');
  await expect(mean).toHaveAttribute('aria-sort', 'descending');
  expect(await modelsOf(models)).toEqual(['perfect', 'partial']);
  await mean.getByRole('button').click();
  await expect(mean).toHaveAttribute('aria-sort', 'ascending');
  expect(await modelsOf(models)).toEqual(['partial', 'perfect']);
});
