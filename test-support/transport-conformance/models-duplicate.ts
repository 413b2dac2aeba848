import { describe, expect, it } from 'vitest';
import { data, dataUrl, failure } from './expect-outcome.js';
import type { Transport } from './transport.js';

const INVOICE = dataUrl('Invoice number: INV-1\nTotal: 42\n');

export function modelsAndDuplicateCases(transport: () => Transport): void {
  describe('models.list', () => {
    it("lists this host's models with their extractor and modalities, patterns flagged", async () => {
      expect(await data(transport().call('models.list'))).toEqual({
        data: [
          { id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'], provider: null },
          { id: '/^vision-/', extractor: 'vision', pattern: true, modalities: ['text', 'image'], provider: null },
        ],
      });
    });

    it('needs a key like every other operation', async () => {
      expect(await failure(transport().call('models.list', undefined, 'anonymous'))).toMatchObject({ status: 401, code: 'unauthorized' });
    });
  });

  describe('evals.duplicate', () => {
    it('copies the documents and ground truth, not the iterations; refuses a bad name, another organization, no key', async () => {
      const source = await data(
        transport().call('evals.create', {
          name: 'Invoices',
          json_schema: { type: 'object', properties: { total: { type: 'number' } } },
          documents: [{ mime_data: { filename: 'a.txt', url: INVOICE }, annotation: { total: 42 } }],
        }),
      );
      await data(transport().call('evals.iterations.create', { evaluation_id: source.id, inference_settings: { model: 'local-rules' } }));

      const copy = await data(transport().call('evals.duplicate', { evaluation_id: source.id }));
      expect(copy).toMatchObject({ name: 'Invoices (copy)', document_count: 1, iterations: [] });
      expect(copy).not.toHaveProperty('documents');
      const whole = await data(transport().call('evals.get', { evaluation_id: copy.id }));
      expect(whole.documents.map((d: any) => [d.id, d.annotation])).toEqual([[source.documents[0].id, { total: 42 }]]);
      const named = await data(transport().call('evals.duplicate', { evaluation_id: source.id, name: 'Invoices v2' }));
      expect(named.name).toBe('Invoices v2');

      const count = async () => (await data(transport().call('evals.list', { limit: 100 }))).data.length;
      const before = await count();
      const empty = await failure(transport().call('evals.duplicate', { evaluation_id: source.id, name: '' }));
      expect(empty.code).toBe('validation_error');
      expect(empty.issues?.[0]?.path).toBe('name');
      expect(await failure(transport().call('evals.duplicate', { evaluation_id: source.id }, 'org_b'))).toMatchObject({ status: 404, code: 'not_found' });
      expect(await failure(transport().call('evals.duplicate', { evaluation_id: source.id }, 'anonymous'))).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(await count()).toBe(before);
    });
  });
}
