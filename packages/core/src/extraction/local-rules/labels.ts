// Abbreviations that stand for "number" in labels ("Invoice No.", "PO #", "Order Nr"), so they meet `invoice_number`.
const NUMBER_WORDS = new Set(['no', 'nr', 'num', 'nbr', '#']);

/**
 * A label reduced to what identifies it: words split at separators and camelCase humps, lowercased, accents
 * dropped, number abbreviations spelled out, joined with nothing. `invoice_number`, `Invoice Number`,
 * `invoice-number`, `InvoiceNumber` and `Invoice No.` all give `invoicenumber`.
 *
 * @example
 * normalizeLabel('PO #'); // 'ponumber'
 */
export function normalizeLabel(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/#/g, ' # ')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}#]+/u)
    .filter((w) => w !== '');
  return words.map((w) => (NUMBER_WORDS.has(w) ? 'number' : w)).join('');
}
