import { Buffer } from 'node:buffer';
import { expect, test } from '@playwright/test';
import { rest, signIn } from './support.js';

test('the document view shows list items paired as the aligned metric matched them', async ({ page }) => {
  const truth = { items: ['apple pie', 'banana bread', 'cherry tart'] };
  const evaluation = await rest('POST', '/v1/evals', {
    name: 'Aligned lists e2e',
    json_schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } },
    documents: [{ mime_data: { filename: 'menu.txt', url: `data:text/plain;base64,${Buffer.from('menu').toString('base64')}` }, annotation: truth }],
    // The model returned the same items in another order: positionally 0 matches, aligned all 3 do.
    iterations: [{ inference_settings: { model: 'imported' }, predictions: [{ prediction: { items: ['cherry tart', 'apple pie', 'banana bread'] } }] }],
  });
  const documentId = evaluation.documents[0].id;
  await signIn(page, `/evals/${evaluation.id}/documents/${documentId}`);
  const fields = page.getByRole('table', { name: 'Fields' });
  await expect(fields.getByRole('columnheader', { name: 'Prediction, list items aligned' })).toBeVisible();
  const first = fields.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'items.0' }) });
  // Ground truth, prediction as given, prediction aligned: the aligned cell holds the truth's own item.
  const cells = first.getByRole('cell');
  await expect(cells.nth(0)).toHaveText('apple pie');
  // As given, item 0 is another item: shown as a character diff whose accessible name says what was predicted.
  await expect(cells.nth(1).locator('[aria-label^="predicted cherry tart,"]')).toHaveCount(1);
  await expect(cells.nth(2)).toHaveText('apple pie');
});
