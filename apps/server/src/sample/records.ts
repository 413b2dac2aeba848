// What the sample's documents say: eight hand-written invoices (five formats and languages, a credit note, a café
// receipt) and generated invoices, receipts and forms, each with the ground truth a person would type. Deterministic:
// the same seed gives the same documents, so screenshots and tests can name them.
import { mulberry32 } from '@docevals/core/internal';

/** The sample's JSON schema: one shape for invoices, credit notes, receipts and expense forms. */
export const SAMPLE_SCHEMA = {
  type: 'object',
  properties: {
    document_type: { type: 'string', enum: ['invoice', 'credit_note', 'receipt', 'form'] },
    invoice_number: { type: 'string', description: 'The invoice, receipt or form reference' },
    vendor: { type: 'string', description: 'Who issued it: the seller, shop or company' },
    date: { type: 'string', description: 'YYYY-MM-DD' },
    currency: { type: 'string', enum: ['EUR', 'USD', 'GBP', 'JPY'] },
    total: { type: 'number' },
    bill_to: { type: 'object', properties: { name: { type: 'string', description: 'The customer, or the employee of a form' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
  },
} as const;

export type Kind = 'invoice' | 'credit_note' | 'receipt' | 'form';
export type Currency = 'EUR' | 'USD' | 'GBP' | 'JPY';

/** A document's ground truth (bill_to absent on receipts: nobody is billed). */
export interface SampleRecord {
  document_type: Kind;
  invoice_number: string;
  vendor: string;
  date: string;
  currency: Currency;
  total: number;
  bill_to?: { name: string };
  line_items: Array<{ description: string; amount: number }>;
}

/** How a document is written: the text formats are files as they are; `pdf` and `png` are drawn from its lines. */
export type Format = 'txt' | 'md' | 'html' | 'pdf' | 'png';

export interface SampleSpec {
  filename: string;
  format: Format;
  truth: SampleRecord;
  /** The document's text, written by hand; generated documents are laid out from their truth (render.ts). */
  text?: string;
}

const invoice = (r: Omit<SampleRecord, 'document_type'>): SampleRecord => ({ document_type: 'invoice', ...r });

/** The hand-written eight: plain text, Markdown, HTML, German, Japanese, a credit note, a long invoice, a receipt. */
export const HAND_WRITTEN: readonly SampleSpec[] = [
  {
    filename: 'acme-invoice.txt',
    format: 'txt',
    text: 'ACME Corp\nInvoice INV-1001\nDate: 2026-03-02\nBill to: Globex Ltd\n\nWidgets x10    120.00\nShipping        15.50\n\nTotal: USD 135.50\n',
    truth: invoice({ invoice_number: 'INV-1001', vendor: 'ACME Corp', date: '2026-03-02', currency: 'USD', total: 135.5, bill_to: { name: 'Globex Ltd' }, line_items: [{ description: 'Widgets x10', amount: 120 }, { description: 'Shipping', amount: 15.5 }] }),
  },
  {
    filename: 'initech-invoice.md',
    format: 'md',
    text: '# Initech\n\n**Invoice** IT-2207 · 2026-04-18\n\nBilled to: *Umbrella plc*\n\n| Item | Amount |\n|---|---|\n| TPS report review | 400.00 |\n| Staplers (red) | 35.00 |\n\n**Total: 435.00 EUR**\n',
    truth: invoice({ invoice_number: 'IT-2207', vendor: 'Initech', date: '2026-04-18', currency: 'EUR', total: 435, bill_to: { name: 'Umbrella plc' }, line_items: [{ description: 'TPS report review', amount: 400 }, { description: 'Staplers (red)', amount: 35 }] }),
  },
  {
    filename: 'hooli-invoice.html',
    format: 'html',
    text: '<h1>Hooli</h1><p>Invoice <b>H-88</b>, 2026-05-09</p><p>Customer: Pied Piper Inc.</p><table><tr><td>Compression audit</td><td>2,000.00</td></tr></table><p>Total USD 2,000.00</p>',
    truth: invoice({ invoice_number: 'H-88', vendor: 'Hooli', date: '2026-05-09', currency: 'USD', total: 2000, bill_to: { name: 'Pied Piper Inc.' }, line_items: [{ description: 'Compression audit', amount: 2000 }] }),
  },
  {
    filename: 'rechnung-mueller.txt',
    format: 'txt',
    text: 'Müller & Söhne GmbH\nRechnung Nr. R-2026-041\nDatum: 11.06.2026\nRechnungsempfänger: Schmidt AG\n\nBeratung           800,00 €\nReisekosten        120,40 €\n\nGesamtbetrag:      920,40 €\n',
    truth: invoice({ invoice_number: 'R-2026-041', vendor: 'Müller & Söhne GmbH', date: '2026-06-11', currency: 'EUR', total: 920.4, bill_to: { name: 'Schmidt AG' }, line_items: [{ description: 'Beratung', amount: 800 }, { description: 'Reisekosten', amount: 120.4 }] }),
  },
  {
    filename: 'seikyusho-yamada.txt',
    format: 'txt',
    text: '請求書\n株式会社山田商事\n請求番号: YS-0312\n発行日: 2026年7月1日\n請求先: 田中電機株式会社\n\n事務用品        12,000円\n配送料           1,500円\n\n合計金額: 13,500円\n',
    truth: invoice({ invoice_number: 'YS-0312', vendor: '株式会社山田商事', date: '2026-07-01', currency: 'JPY', total: 13500, bill_to: { name: '田中電機株式会社' }, line_items: [{ description: '事務用品', amount: 12000 }, { description: '配送料', amount: 1500 }] }),
  },
  {
    filename: 'credit-note-acme.txt',
    format: 'txt',
    text: 'ACME Corp\nCREDIT NOTE CN-17 (for INV-1001)\nDate: 2026-03-20\nBill to: Globex Ltd\n\nReturned widgets x2   -24.00\n\nTotal: USD -24.00\n',
    truth: { document_type: 'credit_note', invoice_number: 'CN-17', vendor: 'ACME Corp', date: '2026-03-20', currency: 'USD', total: -24, bill_to: { name: 'Globex Ltd' }, line_items: [{ description: 'Returned widgets x2', amount: -24 }] },
  },
  {
    filename: 'stark-invoice.txt',
    format: 'txt',
    text: 'Stark Industries\nInvoice SI-5\n2026-08-14\nTo: Wayne Enterprises\n\nArmor plating     9,500.00\nInstallation        500.00\nSupport (1 yr)    1,200.00\n\nAmount due: USD 11,200.00\n',
    truth: invoice({ invoice_number: 'SI-5', vendor: 'Stark Industries', date: '2026-08-14', currency: 'USD', total: 11200, bill_to: { name: 'Wayne Enterprises' }, line_items: [{ description: 'Armor plating', amount: 9500 }, { description: 'Installation', amount: 500 }, { description: 'Support (1 yr)', amount: 1200 }] }),
  },
  {
    filename: 'corner-cafe-receipt.txt',
    format: 'txt',
    text: 'Corner Café\nReceipt 0042\n2026-09-01\nFlat white 3.80\nCroissant 2.90\nTotal EUR 6.70\n',
    truth: { document_type: 'receipt', invoice_number: '0042', vendor: 'Corner Café', date: '2026-09-01', currency: 'EUR', total: 6.7, line_items: [{ description: 'Flat white', amount: 3.8 }, { description: 'Croissant', amount: 2.9 }] },
  },
];

const SELLERS = ['Northwind Traders', 'Contoso Ltd', 'Fabrikam Inc.', 'Tailspin Toys', 'Adventure Works', 'Litware Systems'];
const CUSTOMERS = ['Blue Yonder Airlines', 'Coho Winery', 'Wide World Importers', 'Proseware GmbH', 'Lucerne Publishing', 'Alpine Ski House'];
const SERVICES = ['Consulting (day rate)', 'Software licence', 'Hardware maintenance', 'Training session', 'Cloud hosting (month)', 'Design review', 'Data migration', 'Support plan'];
/** Shops and what each sells. */
const SHOPS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Green Grocer', ['Apples 1kg', 'Milk 1L', 'Bread', 'Coffee beans', 'Tea', 'Tomatoes']],
  ['City Pharmacy', ['Paracetamol', 'Plasters', 'Sun cream', 'Toothpaste', 'Vitamin C']],
  ['Book Nook', ['Notebook A5', 'Paperback novel', 'Pens (pack of 5)', 'Road atlas', 'Greeting card']],
  ['Hardware Depot', ['Screws (box)', 'Batteries AA', 'Paint brush', 'Hammer', 'Tape measure']],
  ['Bella Pizzeria', ['Margherita', 'Quattro stagioni', 'Sparkling water', 'Tiramisu', 'Espresso']],
  ['Fuel Stop 24', ['Unleaded 40L', 'Car wash', 'Sandwich', 'Coffee to go', 'Windscreen fluid']],
];
const EMPLOYEES = ['Dana Scully', 'Fox Mulder', 'Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Linus Pauling'];
const EXPENSES = ['Train ticket', 'Hotel (2 nights)', 'Taxi', 'Client dinner', 'Conference fee', 'Parking', 'Flight'];
const CURRENCIES: Currency[] = ['EUR', 'USD', 'GBP'];

/** Generated documents: six invoices, ten receipts, eight expense forms, in the formats given by their order. */
export const GENERATED_FORMATS: Readonly<Record<'invoice' | 'receipt' | 'form', readonly Format[]>> = {
  invoice: ['pdf', 'pdf', 'pdf', 'md', 'html', 'txt'],
  receipt: ['png', 'png', 'png', 'png', 'png', 'png', 'txt', 'txt', 'pdf', 'pdf'],
  form: ['pdf', 'pdf', 'pdf', 'pdf', 'png', 'png', 'txt', 'txt'],
};

/** The generated documents' truths (deterministic from `seed`), with file names that say what they are. */
export function generatedSpecs(seed = 28): SampleSpec[] {
  const random = mulberry32(seed); // seeded: the same documents at every start
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const cents = (min: number, max: number) => Math.round((min + random() * (max - min)) * 100) / 100;
  const day = () => `2026-${String(1 + Math.floor(random() * 11)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
  /** `count` different lines of `names`. */
  const items = (names: readonly string[], count: number, min: number, max: number) => {
    const left = [...names];
    return Array.from({ length: count }, () => ({ description: left.splice(Math.floor(random() * left.length), 1)[0]!, amount: cents(min, max) }));
  };
  const sum = (lines: Array<{ amount: number }>) => Math.round(lines.reduce((total, line) => total + line.amount * 100, 0)) / 100;
  const specs: SampleSpec[] = [];
  GENERATED_FORMATS.invoice.forEach((format, i) => {
    const line_items = items(SERVICES, 1 + Math.floor(random() * 4), 80, 2400);
    const vendor = SELLERS[i % SELLERS.length]!;
    const truth = invoice({ invoice_number: `${vendor.slice(0, 2).toUpperCase()}-${3000 + i * 17}`, vendor, date: day(), currency: pick(CURRENCIES), total: sum(line_items), bill_to: { name: pick(CUSTOMERS) }, line_items });
    specs.push({ filename: `invoice-${slug(vendor)}-${truth.invoice_number.toLowerCase()}.${format}`, format, truth });
  });
  GENERATED_FORMATS.receipt.forEach((format, i) => {
    const [vendor, goods] = SHOPS[i % SHOPS.length]!;
    const line_items = items(goods, 2 + Math.floor(random() * 4), 0.8, 45);
    const truth: SampleRecord = { document_type: 'receipt', invoice_number: String(1000 + Math.floor(random() * 9000)), vendor, date: day(), currency: pick(CURRENCIES), total: sum(line_items), line_items };
    specs.push({ filename: `receipt-${slug(vendor)}-${truth.invoice_number}.${format}`, format, truth });
  });
  GENERATED_FORMATS.form.forEach((format, i) => {
    const line_items = items(EXPENSES, 1 + Math.floor(random() * 3), 12, 640);
    const employee = EMPLOYEES[i % EMPLOYEES.length]!;
    const truth: SampleRecord = { document_type: 'form', invoice_number: `EXP-${2026}-${String(101 + i * 7)}`, vendor: pick(SELLERS), date: day(), currency: pick(CURRENCIES), total: sum(line_items), bill_to: { name: employee }, line_items };
    specs.push({ filename: `expense-form-${String(i + 1).padStart(2, '0')}-${slug(employee)}.${format}`, format, truth });
  });
  return specs;
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
