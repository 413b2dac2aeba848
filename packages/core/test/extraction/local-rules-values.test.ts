import { describe, expect, it } from 'vitest';
import { coerceText, parseDate, parseNumber } from '../../src/extraction/local-rules/coerce-value.js';
import { normalizeLabel } from '../../src/extraction/local-rules/labels.js';
import { modelMatches } from '../../src/extraction/model-routing.js';
import { backoffDelay } from '../../src/extraction/backoff.js';

describe('local-rules labels and values', () => {
  it('matches labels whatever their case and separators', () => {
    for (const label of ['invoice_number', 'Invoice Number', 'invoice-number', 'InvoiceNumber', 'INVOICE NUMBER', 'Invoice No.', 'Invoice #']) {
      expect(normalizeLabel(label)).toBe('invoicenumber');
    }
    expect(normalizeLabel('VATId')).toBe('vatid');
  });

  it('reads numbers as documents write them', () => {
    const cases: Array<[string, number | undefined]> = [
      ['1,234.56', 1234.56],
      ['1.234,56', 1234.56],
      ['1 234,56', 1234.56],
      ['$12', 12],
      ['12.00 EUR', 12],
      ['€ -3,5', -3.5],
      ['(12.00)', -12],
      ['15%', 15],
      ['1,234', 1234],
      ['0,99', 0.99],
      ['1.234.567', 1234567],
      ['12 apples', undefined],
      ['page 3', undefined],
      ['1.2.3,4,5', undefined],
    ];
    for (const [text, expected] of cases) expect(parseNumber(text), text).toBe(expected);
  });

  it('reads dates as YYYY-MM-DD', () => {
    expect(parseDate('2024-03-05')).toBe('2024-03-05');
    expect(parseDate('2024-03-05T10:00:00Z')).toBe('2024-03-05');
    expect(parseDate('05.03.2024')).toBe('2024-03-05');
    expect(parseDate('03/05/2024')).toBe('2024-03-05');
    expect(parseDate('25/03/2024')).toBe('2024-03-25');
    expect(parseDate('5 March 2024')).toBe('2024-03-05');
    expect(parseDate('March 5, 2024')).toBe('2024-03-05');
    expect(parseDate('5-Mar-2024')).toBe('2024-03-05');
    expect(parseDate('2024-02-30')).toBeUndefined();
    expect(parseDate('soon')).toBeUndefined();
  });

  it('converts to the field type, booleans, integers and enums included, and refuses what does not convert', () => {
    const scalar = (types: Array<'string' | 'number' | 'integer' | 'boolean'>, extra = {}) => ({ kind: 'scalar' as const, nullable: true, types, ...extra });
    expect(coerceText(' yes ', scalar(['boolean']))).toBe(true);
    expect(coerceText('N', scalar(['boolean']))).toBe(false);
    expect(coerceText('maybe', scalar(['boolean']))).toBeUndefined();
    expect(coerceText('3', scalar(['integer']))).toBe(3);
    expect(coerceText('3.5', scalar(['integer']))).toBeUndefined();
    expect(coerceText('eur', scalar(['string'], { enum: ['USD', 'EUR'] }))).toBe('EUR');
    expect(coerceText('CHF', scalar(['string'], { enum: ['USD', 'EUR'] }))).toBeUndefined();
    expect(coerceText('  "quoted"  ', scalar(['string']))).toBe('quoted');
    expect(coerceText('', scalar(['string']))).toBeUndefined();
  });
});

describe('routing patterns and backoff', () => {
  it('matches exact names, globs and RegExps', () => {
    expect(modelMatches('gpt-4o', 'gpt-4o')).toBe(true);
    expect(modelMatches('gpt-4o', 'gpt-4o-mini')).toBe(false);
    expect(modelMatches('gpt-*', 'gpt-4o-mini')).toBe(true);
    expect(modelMatches('*', 'anything')).toBe(true);
    expect(modelMatches('gpt.4*', 'gpt-4o')).toBe(false); // the dot is literal
    const sticky = /^o\d/g;
    expect([modelMatches(sticky, 'o3'), modelMatches(sticky, 'o3')]).toEqual([true, true]);
  });

  it('backs off exponentially with full jitter, capped', () => {
    const options = { backoffBaseMs: 500, backoffMaxMs: 10_000 };
    expect(backoffDelay(1, options, () => 0.999999)).toBe(499);
    expect(backoffDelay(3, options, () => 0.5)).toBe(1000);
    expect(backoffDelay(10, options, () => 0.999999)).toBe(9999);
    expect(backoffDelay(2, options, () => 0)).toBe(0);
  });
});
