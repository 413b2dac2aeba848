// The sample evaluation the evaluations page offers ("Load the sample"): eight invoices (plain text, Markdown, HTML,
// German, Japanese, a credit note), with their ground truth and two imported iterations, so that every view has
// something to show without a model. Loaded on the button's click (a chunk of its own).
import type { RouterInputs } from './trpc.js';

type Invoice = {
  invoice_number: string;
  vendor: string;
  date: string;
  currency: 'EUR' | 'USD' | 'JPY';
  total: number;
  bill_to: { name: string };
  line_items: Array<{ description: string; amount: number }>;
};

export const SAMPLE_SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    vendor: { type: 'string' },
    date: { type: 'string', description: 'YYYY-MM-DD' },
    currency: { type: 'string', enum: ['EUR', 'USD', 'JPY'] },
    total: { type: 'number' },
    bill_to: { type: 'object', properties: { name: { type: 'string' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
  },
};

const SAMPLES: Array<{ filename: string; type: string; text: string; truth: Invoice }> = [
  {
    filename: 'acme-invoice.txt',
    type: 'text/plain',
    text: 'ACME Corp\nInvoice INV-1001\nDate: 2026-03-02\nBill to: Globex Ltd\n\nWidgets x10    120.00\nShipping        15.50\n\nTotal: USD 135.50\n',
    truth: { invoice_number: 'INV-1001', vendor: 'ACME Corp', date: '2026-03-02', currency: 'USD', total: 135.5, bill_to: { name: 'Globex Ltd' }, line_items: [{ description: 'Widgets x10', amount: 120 }, { description: 'Shipping', amount: 15.5 }] },
  },
  {
    filename: 'initech-invoice.md',
    type: 'text/markdown',
    text: '# Initech\n\n**Invoice** IT-2207 · 2026-04-18\n\nBilled to: *Umbrella plc*\n\n| Item | Amount |\n|---|---|\n| TPS report review | 400.00 |\n| Staplers (red) | 35.00 |\n\n**Total: 435.00 EUR**\n',
    truth: { invoice_number: 'IT-2207', vendor: 'Initech', date: '2026-04-18', currency: 'EUR', total: 435, bill_to: { name: 'Umbrella plc' }, line_items: [{ description: 'TPS report review', amount: 400 }, { description: 'Staplers (red)', amount: 35 }] },
  },
  {
    filename: 'hooli-invoice.html',
    type: 'text/html',
    text: '<h1>Hooli</h1><p>Invoice <b>H-88</b>, 2026-05-09</p><p>Customer: Pied Piper Inc.</p><table><tr><td>Compression audit</td><td>2,000.00</td></tr></table><p>Total USD 2,000.00</p>',
    truth: { invoice_number: 'H-88', vendor: 'Hooli', date: '2026-05-09', currency: 'USD', total: 2000, bill_to: { name: 'Pied Piper Inc.' }, line_items: [{ description: 'Compression audit', amount: 2000 }] },
  },
  {
    filename: 'rechnung-mueller.txt',
    type: 'text/plain',
    text: 'Müller & Söhne GmbH\nRechnung Nr. R-2026-041\nDatum: 11.06.2026\nRechnungsempfänger: Schmidt AG\n\nBeratung           800,00 €\nReisekosten        120,40 €\n\nGesamtbetrag:      920,40 €\n',
    truth: { invoice_number: 'R-2026-041', vendor: 'Müller & Söhne GmbH', date: '2026-06-11', currency: 'EUR', total: 920.4, bill_to: { name: 'Schmidt AG' }, line_items: [{ description: 'Beratung', amount: 800 }, { description: 'Reisekosten', amount: 120.4 }] },
  },
  {
    filename: 'seikyusho-yamada.txt',
    type: 'text/plain',
    text: '請求書\n株式会社山田商事\n請求番号: YS-0312\n発行日: 2026年7月1日\n請求先: 田中電機株式会社\n\n事務用品        12,000円\n配送料           1,500円\n\n合計金額: 13,500円\n',
    truth: { invoice_number: 'YS-0312', vendor: '株式会社山田商事', date: '2026-07-01', currency: 'JPY', total: 13500, bill_to: { name: '田中電機株式会社' }, line_items: [{ description: '事務用品', amount: 12000 }, { description: '配送料', amount: 1500 }] },
  },
  {
    filename: 'credit-note-acme.txt',
    type: 'text/plain',
    text: 'ACME Corp\nCREDIT NOTE CN-17 (for INV-1001)\nDate: 2026-03-20\nBill to: Globex Ltd\n\nReturned widgets x2   -24.00\n\nTotal: USD -24.00\n',
    truth: { invoice_number: 'CN-17', vendor: 'ACME Corp', date: '2026-03-20', currency: 'USD', total: -24, bill_to: { name: 'Globex Ltd' }, line_items: [{ description: 'Returned widgets x2', amount: -24 }] },
  },
  {
    filename: 'stark-invoice.txt',
    type: 'text/plain',
    text: 'Stark Industries\nInvoice SI-5\n2026-08-14\nTo: Wayne Enterprises\n\nArmor plating     9,500.00\nInstallation        500.00\nSupport (1 yr)    1,200.00\n\nAmount due: USD 11,200.00\n',
    truth: { invoice_number: 'SI-5', vendor: 'Stark Industries', date: '2026-08-14', currency: 'USD', total: 11200, bill_to: { name: 'Wayne Enterprises' }, line_items: [{ description: 'Armor plating', amount: 9500 }, { description: 'Installation', amount: 500 }, { description: 'Support (1 yr)', amount: 1200 }] },
  },
  {
    filename: 'unlabeled-receipt.txt',
    type: 'text/plain',
    text: 'Corner Café\nReceipt 0042\n2026-09-01\nFlat white 3.80\nCroissant 2.90\nTotal EUR 6.70\n',
    // No ground truth yet: the one to annotate (the document page's "Next unlabeled document").
    truth: null as unknown as Invoice,
  },
];

/** A first reading: the dates as written, the credit note's sign lost, the Japanese customer cut, one failure. */
function baseline(invoice: Invoice, i: number): { prediction: Record<string, unknown>; metadata?: Record<string, unknown> } {
  if (i === 6) return { prediction: {}, metadata: { error: 'the model answered no JSON' } };
  const prediction: Invoice = structuredClone(invoice);
  if (i === 3) prediction.date = '11.06.2026';
  if (i === 4) prediction.bill_to.name = '田中電機';
  if (i === 5) {
    prediction.total = 24;
    prediction.line_items = [{ description: 'Returned widgets x2', amount: 24 }];
  }
  if (i === 1) prediction.line_items = [...prediction.line_items].reverse();
  return { prediction, metadata: { api_cost: { value: 0.0011, currency: 'USD' } } };
}

/** A better prompt: everything right but the HTML invoice's customer and the German vendor's ampersand. */
function improved(invoice: Invoice, i: number): { prediction: Record<string, unknown>; metadata?: Record<string, unknown> } {
  const prediction: Invoice = structuredClone(invoice);
  if (i === 2) prediction.bill_to.name = 'Pied Piper';
  if (i === 3) prediction.vendor = 'Müller und Söhne GmbH';
  return { prediction, metadata: { api_cost: { value: 0.0018, currency: 'USD' } } };
}

const dataUrl = (type: string, text: string) => `data:${type};charset=utf-8;base64,${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}`;

/** `evals.create`'s input for the sample, and the names its two iterations get after. */
export function sampleEvaluation(): { input: RouterInputs['evals']['create']; names: Array<{ name: string; description: string; tags: string[] }> } {
  const labeled = SAMPLES.map((sample, i) => ({ sample, i })).filter(({ sample }) => sample.truth !== null);
  const predictionsOf = (read: typeof baseline) =>
    SAMPLES.map((sample, i) => (sample.truth === null ? { prediction: {} } : read(sample.truth, i)));
  return {
    input: {
      name: 'Sample: invoices',
      json_schema: SAMPLE_SCHEMA,
      documents: SAMPLES.map((sample) => ({ mime_data: { filename: sample.filename, url: dataUrl(sample.type, sample.text) }, annotation: sample.truth ?? {} })),
      iterations: [
        { inference_settings: { model: 'sample-model' }, predictions: predictionsOf(baseline) },
        { inference_settings: { model: 'sample-model' }, predictions: predictionsOf(improved) },
      ],
    },
    names: [
      { name: 'Baseline prompt', description: `The first prompt, on the ${labeled.length} labeled invoices.`, tags: ['sample', 'baseline'] },
      { name: 'Explicit dates and signs', description: 'Asks for ISO dates and signed totals.', tags: ['sample', 'candidate'] },
    ],
  };
}
