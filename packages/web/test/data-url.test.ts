// The document viewer's data URL parsing: media types with parameters (issue 28's review: a
// `data:text/plain;charset=utf-8;base64,...` document was not shown).
import { describe, expect, it } from 'vitest';
import { dataUrlText, parseDataUrl } from '../src/data-url.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('parseDataUrl', () => {
  it('reads a media type with parameters before ;base64', () => {
    const parsed = parseDataUrl(`data:text/plain;charset=utf-8;base64,${b64('Rechnung für Müller — 請求書')}`)!;
    expect(parsed.type).toBe('text/plain');
    expect(parsed.parameters).toEqual({ charset: 'utf-8' });
    expect(dataUrlText(parsed)).toBe('Rechnung für Müller — 請求書');
  });

  it('keeps the plain forms: base64 without parameters, percent-encoded text, no media type', () => {
    expect(dataUrlText(parseDataUrl(`data:text/plain;base64,${b64('total: 12')}`)!)).toBe('total: 12');
    const text = parseDataUrl('data:text/markdown;charset=UTF-8,%23%20Title%0Aline')!;
    expect([text.type, dataUrlText(text)]).toEqual(['text/markdown', '# Title\nline']);
    expect(parseDataUrl('data:,hello')).toMatchObject({ type: 'text/plain', parameters: { charset: 'US-ASCII' } });
  });

  it('lower-cases the type and parameter names, unquotes values, decodes in the charset given', () => {
    const parsed = parseDataUrl(`data:Application/PDF;Name="a b.pdf";base64,${b64('%PDF-1.4')}`)!;
    expect(parsed.type).toBe('application/pdf');
    expect(parsed.parameters).toEqual({ name: 'a b.pdf' });
    const latin1 = parseDataUrl(`data:text/plain;charset=iso-8859-1;base64,${Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72]).toString('base64')}`)!;
    expect(dataUrlText(latin1)).toBe('Müller');
  });

  it('refuses what is not a data URL or has broken base64', () => {
    expect(parseDataUrl('https://example.com/a.pdf')).toBeNull();
    expect(parseDataUrl('data:text/plain;base64')).toBeNull();
    expect(parseDataUrl('data:text/plain;base64,@@@@')).toBeNull();
  });
});
