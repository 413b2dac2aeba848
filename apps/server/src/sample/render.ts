// The sample's documents as files: hand-written ones as they are; generated ones laid out as a person would print
// them (an invoice with its table, a till receipt, an expense claim form), then written as text, Markdown, HTML, a
// PDF (pdf.ts) or a PNG image drawn by @docevals/openai's text renderer.
import { renderTextPages } from '@docevals/openai';
import { textPdf } from './pdf.js';
import type { Format, SampleRecord, SampleSpec } from './records.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MEDIA_TYPES: Record<Format, string> = { txt: 'text/plain', md: 'text/markdown', html: 'text/html', pdf: 'application/pdf', png: 'image/png' };

/** Amounts as printed: thousands separated, two decimals. */
export const money = (amount: number) => amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The date as the document prints it: ISO, "14 March 2026" or "14.03.2026", by the document's number (so a reader
 * that copies dates as written gets some wrong).
 */
export function printedDate(truth: SampleRecord): string {
  const [year, month, day] = truth.date.split('-');
  const style = [...truth.invoice_number].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 3;
  if (style === 1) return `${Number(day)} ${MONTHS[Number(month) - 1]} ${year}`;
  if (style === 2) return `${day}.${month}.${year}`;
  return truth.date;
}

const row = (description: string, amount: string, width = 34) => `${description.padEnd(width - amount.length - 1)} ${amount}`;

/** The lines a generated document prints, heading first. */
export function printedLines(truth: SampleRecord): string[] {
  const items = truth.line_items.map((item) => row(item.description, money(item.amount)));
  const date = printedDate(truth);
  if (truth.document_type === 'receipt') {
    const rule = '-'.repeat(34);
    return [truth.vendor, `Receipt #${truth.invoice_number}`, `${date}  ${truth.date < '2026-06' ? '09:41' : '17:05'}`, rule, ...items, rule, row('TOTAL', `${truth.currency} ${money(truth.total)}`), 'Paid by card', 'Thank you for your visit!'];
  }
  if (truth.document_type === 'form') {
    return [
      'EXPENSE CLAIM FORM',
      `Company: ${truth.vendor}`,
      `Claim reference: ${truth.invoice_number}`,
      `Date submitted: ${date}`,
      `Employee: ${truth.bill_to?.name ?? ''}`,
      `Currency: ${truth.currency}`,
      '',
      row('Expense', 'Amount'),
      ...items,
      '',
      row('Total claimed', money(truth.total)),
      'Signature: ____________________',
    ];
  }
  return [truth.vendor, `INVOICE ${truth.invoice_number}`, `Date: ${date}`, `Bill to: ${truth.bill_to?.name ?? ''}`, '', row('Description', 'Amount'), ...items, '', row('Total due', `${truth.currency} ${money(truth.total)}`)];
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

/** A generated invoice in Markdown (a table of its lines) or HTML. */
function markup(truth: SampleRecord, format: 'md' | 'html'): string {
  const date = printedDate(truth);
  if (format === 'md') {
    const rows = truth.line_items.map((item) => `| ${item.description} | ${money(item.amount)} |`).join('\n');
    return `# ${truth.vendor}\n\n**Invoice** ${truth.invoice_number} · ${date}\n\nBilled to: *${truth.bill_to?.name ?? ''}*\n\n| Item | Amount |\n|---|---|\n${rows}\n\n**Total: ${money(truth.total)} ${truth.currency}**\n`;
  }
  const rows = truth.line_items.map((item) => `<tr><td>${escapeHtml(item.description)}</td><td>${money(item.amount)}</td></tr>`).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice ${escapeHtml(truth.invoice_number)}</title></head><body>` +
    `<h1>${escapeHtml(truth.vendor)}</h1><p>Invoice <b>${escapeHtml(truth.invoice_number)}</b>, ${date}</p>` +
    `<p>Customer: ${escapeHtml(truth.bill_to?.name ?? '')}</p><table>${rows}</table><p>Total ${truth.currency} ${money(truth.total)}</p></body></html>`
  );
}

/** A document's file: its bytes and media type. */
export interface SampleFile {
  bytes: Uint8Array;
  type: string;
}

/**
 * The file of a sample document. A PNG is the document's lines drawn on an A5 page at 120 dpi; on a machine with no
 * font at all nothing legible can be drawn, and the document is written as text instead (its name then ends in `.txt`).
 */
export async function sampleFile(spec: SampleSpec): Promise<SampleFile & { filename: string }> {
  const text = spec.text ?? (spec.format === 'md' || spec.format === 'html' ? markup(spec.truth, spec.format) : printedLines(spec.truth).join('\n') + '\n');
  const encoded = { filename: spec.filename, type: MEDIA_TYPES[spec.format] };
  if (spec.format === 'pdf') return { ...encoded, bytes: textPdf(printedLines(spec.truth)) };
  if (spec.format === 'png') {
    const pages = await renderTextPages(text, 'A5', 120, 1);
    if (pages?.[0]) return { ...encoded, bytes: pages[0].png };
    return { filename: spec.filename.replace(/\.png$/, '.txt'), type: MEDIA_TYPES.txt, bytes: new TextEncoder().encode(text) };
  }
  return { ...encoded, bytes: new TextEncoder().encode(text) };
}
