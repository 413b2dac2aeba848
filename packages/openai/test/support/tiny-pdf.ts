/**
 * A minimal valid one-page PDF showing `text` in Helvetica, written byte by byte: header, four objects (catalog,
 * pages, page, content stream) plus the font, a cross-reference table with exact offsets, and the trailer.
 */
export function tinyPdf(text: string): Uint8Array {
  return handWrittenPdf([{ width: 612, height: 792, text, x: 72, y: 720, size: 18 }]);
}

/** One page of {@link handWrittenPdf}: its MediaBox in points and a line of text drawn at (x, y). */
export interface HandWrittenPage {
  width: number;
  height: number;
  text: string;
  x?: number;
  y?: number;
  size?: number;
}

/**
 * A valid PDF with the given pages (their own MediaBox each), written byte by byte: catalog, pages, then per page its
 * page object and content stream, the shared Helvetica font, an exact cross-reference table and the trailer.
 */
export function handWrittenPdf(pages: HandWrittenPage[]): Uint8Array {
  const fontRef = 3 + pages.length * 2;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
  ];
  for (const [i, page] of pages.entries()) {
    const escaped = page.text.replace(/[\\()]/g, (c) => `\\${c}`);
    const stream = `BT /F1 ${page.size ?? 12} Tf ${page.x ?? 4} ${page.y ?? page.height / 2} Td (${escaped}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width} ${page.height}] /Resources << /Font << /F1 ${fontRef} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    );
  }
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
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
  return new TextEncoder().encode(pdf); // ASCII only: one byte per character, so the offsets hold
}
