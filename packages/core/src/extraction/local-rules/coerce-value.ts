import type { JsonValue } from '../../json/assert-json.js';
import type { ScalarNode } from './schema-fields.js';

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};

/**
 * Converts the text found for a field to the field's type; undefined when it does not convert (the field then
 * stays null: a value of the wrong type is not a value of that field).
 *
 * @example
 * coerceText('€ 1.234,56', { kind: 'scalar', nullable: true, types: ['number'] }); // 1234.56
 */
export function coerceText(text: string, node: ScalarNode): JsonValue | undefined {
  const value = unquote(text.trim());
  if (value === '') return undefined;
  if (node.enum) return matchEnum(value, node.enum);
  if (node.types.length === 0) return value;
  for (const type of node.types) {
    const converted = convert(value, type, node.format);
    if (converted !== undefined) return converted;
  }
  return undefined;
}

/** The same for a value read from a JSON document: kept when it already has the type, else converted as text. */
export function coerceJson(value: JsonValue, node: ScalarNode): JsonValue | undefined {
  if (value === null) return undefined;
  if (typeof value === 'object') return undefined;
  if (node.enum) return matchEnum(value, node.enum);
  if (node.types.length === 0) return value;
  if (typeof value === 'number' && node.types.includes('number')) return value;
  if (typeof value === 'number' && node.types.includes('integer') && Number.isInteger(value)) return value;
  if (typeof value === 'boolean' && node.types.includes('boolean')) return value;
  if (typeof value === 'string' && node.types.includes('string') && !isDateFormat(node.format)) return value.trim();
  return coerceText(String(value), node);
}

function convert(value: string, type: ScalarNode['types'][number], format: string | undefined): JsonValue | undefined {
  switch (type) {
    case 'string':
      return isDateFormat(format) ? parseDate(value) : value;
    case 'number':
      return parseNumber(value);
    case 'integer': {
      const n = parseNumber(value);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case 'boolean':
      return parseBoolean(value);
  }
}

function isDateFormat(format: string | undefined): boolean {
  return format === 'date';
}

function matchEnum(value: string | number | boolean, options: JsonValue[]): JsonValue | undefined {
  const exact = options.find((o) => o === value);
  if (exact !== undefined) return exact;
  const wanted = String(value).trim().toLowerCase();
  return options.find((o) => o !== null && typeof o !== 'object' && String(o).toLowerCase() === wanted);
}

function unquote(value: string): string {
  const stripped = value.replace(/^\*+|\*+$/g, '').trim();
  const m = /^(["'`])(.*)\1$/s.exec(stripped);
  return m ? m[2]!.trim() : stripped;
}

/**
 * Numbers as documents write them: `1,234.56`, `1.234,56`, `1 234,56`, `$12`, `12.00 EUR`, `(12.00)` and `-12` for
 * negatives, `15%`. Anything else in the text (words, two numbers) makes it not a number.
 */
export function parseNumber(text: string): number | undefined {
  let s = text.trim().replace(/[\u00a0\u202f\u2009']/g, ' ');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1]!.trim();
  }
  // Currency signs and ISO codes before or after the amount, and a percent sign, are not part of the number.
  s = s.replace(/^(?:[A-Z]{3}|[$€£¥₹₩₽¢]|US\$|R\$)\s*/u, '').replace(/\s*(?:[A-Z]{3}|[$€£¥₹₩₽¢%])$/u, '').trim();
  if (/^[-−]/.test(s)) {
    negative = !negative;
    s = s.slice(1).trim();
    s = s.replace(/^(?:[A-Z]{3}|[$€£¥₹₩₽¢])\s*/u, '');
  } else if (/[-−]$/.test(s)) {
    negative = !negative;
    s = s.slice(0, -1).trim();
  }
  if (s.startsWith('+')) s = s.slice(1);
  if (!/^\d[\d., ]*$|^[.,]\d+$/.test(s)) return undefined;
  s = s.replace(/ (?=\d{3}\b)/g, '');
  if (/ /.test(s)) return undefined;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    // Both present: the last one is the decimal separator (`1,234.56` and `1.234,56`).
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    normalized = s.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    const parts = s.split(',');
    // `1,234` and `1,234,567` group thousands; `12,5` and `0,99` are European decimals.
    const grouped = parts.length > 2 || (parts[1]!.length === 3 && parts[0] !== '0' && parts[0] !== '');
    normalized = grouped ? parts.join('') : parts.join('.');
  } else if (lastDot >= 0 && s.split('.').length > 2) {
    normalized = s.split('.').join(''); // `1.234.567`
  } else {
    normalized = s;
  }
  if (!/^\d*\.?\d+$|^\d+\.$/.test(normalized)) return undefined;
  const n = Number(normalized);
  if (!Number.isFinite(n)) return undefined;
  return negative ? -n : n;
}

function parseBoolean(text: string): boolean | undefined {
  const s = text.trim().toLowerCase().replace(/[.!]$/, '');
  if (['yes', 'y', 'true', 't', '1', 'on', 'x', '✓', '☑'].includes(s)) return true;
  if (['no', 'n', 'false', 'f', '0', 'off', '☐'].includes(s)) return false;
  return undefined;
}

/**
 * A date as `YYYY-MM-DD` from `2024-03-05`, `2024/03/05`, `2024-03-05T10:00Z`, `05.03.2024` (day first),
 * `03/05/2024` (month first unless the first number is above 12), `5 March 2024`, `March 5, 2024`, `5-Mar-2024`.
 */
export function parseDate(text: string): string | undefined {
  const s = text.trim().replace(/,/g, ' ').replace(/\s+/g, ' ');
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ].*)?$/.exec(s);
  if (m) return isoDate(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
  if (m) return isoDate(+m[3]!, +m[2]!, +m[1]!);
  m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(s);
  if (m) {
    const a = +m[1]!;
    const b = +m[2]!;
    return a > 12 ? isoDate(+m[3]!, b, a) : isoDate(+m[3]!, a, b);
  }
  m = /^(\d{1,2})(?:st|nd|rd|th)?[ -]([A-Za-z]+)\.?[ -](\d{4})$/.exec(s);
  if (m) return monthName(m[2]!, (month) => isoDate(+m![3]!, month, +m![1]!));
  m = /^([A-Za-z]+)\.? (\d{1,2})(?:st|nd|rd|th)? (\d{4})$/.exec(s);
  if (m) return monthName(m[1]!, (month) => isoDate(+m![3]!, month, +m![2]!));
  return undefined;
}

function monthName(name: string, build: (month: number) => string | undefined): string | undefined {
  const month = MONTHS[name.toLowerCase().slice(0, name.toLowerCase().startsWith('sept') ? 4 : 3)];
  return month === undefined ? undefined : build(month);
}

function isoDate(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
