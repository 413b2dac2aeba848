/**
 * A one-page PDF of text lines, written object by object (no library needed for this much): the catalog, the page
 * tree, one A4 page, its content stream (a text object per line: the first line in Helvetica-Bold as a heading, the
 * others in Courier, so that columns padded with spaces line up), the two standard fonts in WinAnsiEncoding, an exact cross-reference table and the
 * trailer. PDF.js (unpdf) reads its text layer; a viewer shows it.
 *
 * Characters must be Latin-1 (one byte each, so that the offsets hold); anything else is refused.
 *
 * @example
 * const bytes = textPdf(['ACME Corp', 'Invoice INV-1001', 'Total: USD 135.50']);
 */
export function textPdf(lines: readonly string[]): Uint8Array {
  const unsupported = lines.join('').match(/[^\x20-\xff]/u);
  if (unsupported) throw new RangeError(`a sample PDF holds Latin-1 text only, not "${unsupported[0]}"`);
  const escape = (line: string) => line.replace(/[\\()]/g, (c) => `\\${c}`);
  const text = lines.map((line, i) => `BT ${i === 0 ? '/F2 16' : '/F1 11'} Tf 56 ${780 - i * 18 - (i > 0 ? 8 : 0)} Td (${escape(line)}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(pdf, (c) => c.charCodeAt(0));
}
