import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { tableColumns, tableUiSchema } from '../src/components/TableField.js';

const lineItems: RJSFSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      description: { type: 'string', title: 'Description' },
      quantity: { type: 'integer' },
      amount: { type: ['number', 'null'] },
      unit: { enum: ['h', 'pcs'] },
    },
  },
};

describe('arrays of objects as tables', () => {
  it('makes a column of each scalar field of the items, titled', () => {
    expect(tableColumns(lineItems)?.map((column) => [column.key, column.title])).toEqual([
      ['description', 'Description'],
      ['quantity', 'quantity'],
      ['amount', 'amount'],
      ['unit', 'unit'],
    ]);
  });

  it('leaves lists of scalars and items with nested objects or lists to the plain list', () => {
    expect(tableColumns({ type: 'array', items: { type: 'string' } })).toBeNull();
    expect(tableColumns({ type: 'array', items: { type: 'object', properties: { tax: { type: 'object', properties: {} } } } })).toBeNull();
    expect(tableColumns({ type: 'array', items: { type: 'object', properties: { tags: { type: 'array' } } } })).toBeNull();
  });

  it('marks every such array at any depth of objects, and nothing else', () => {
    const schema: RJSFSchema = {
      type: 'object',
      properties: {
        total: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
        line_items: lineItems,
        bill_to: { type: 'object', properties: { contacts: { type: 'array', items: { type: 'object', properties: { email: { type: 'string' } } } } } },
      },
    };
    expect(tableUiSchema(schema)).toEqual({ line_items: { 'ui:field': 'table' }, bill_to: { contacts: { 'ui:field': 'table' } } });
  });
});
