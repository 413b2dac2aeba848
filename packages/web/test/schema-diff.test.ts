import { describe, expect, it } from 'vitest';
import { schemaDiff } from '../src/schema-diff.js';

const invoice = {
  type: 'object',
  properties: {
    total: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
    bill_to: { type: 'object', properties: { name: { type: 'string' }, vat: { type: 'string' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } } } },
  },
};

describe('schemaDiff', () => {
  it('finds nothing between equal schemas', () => {
    expect(schemaDiff(invoice, structuredClone(invoice))).toEqual([]);
  });

  it('names fields added, removed and changed, nested and in list items', () => {
    const changed = structuredClone(invoice) as typeof invoice & { properties: Record<string, unknown> };
    changed.properties.total = { type: 'string' };
    changed.properties.currency = { type: 'string', enum: ['EUR', 'USD', 'JPY'] };
    delete (changed.properties.bill_to as { properties: Record<string, unknown> }).properties.vat;
    (changed.properties.line_items as { items: { properties: Record<string, unknown> } }).items.properties.sku = { type: 'string' };
    changed.properties.due_date = { type: 'string', format: 'date' };
    expect(schemaDiff(invoice, changed)).toEqual([
      { path: 'total', kind: 'changed', detail: 'type: "number" → "string"' },
      { path: 'currency', kind: 'changed', detail: 'enum: ["EUR","USD"] → ["EUR","USD","JPY"]' },
      { path: 'bill_to.vat', kind: 'removed', detail: 'type "string"' },
      { path: 'line_items.*.sku', kind: 'added', detail: 'type "string"' },
      { path: 'due_date', kind: 'added', detail: 'type "string"' },
    ]);
  });

  it('says a change of the root itself (required fields)', () => {
    expect(schemaDiff(invoice, { ...invoice, required: ['total'] })).toEqual([{ path: '(root)', kind: 'changed', detail: 'required: (none) → ["total"]' }]);
  });
});
