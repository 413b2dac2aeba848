import type { JsonObject } from '@docevals/core';

/** An invoice schema using what local-rules reads: titles, descriptions, nullable types, $ref, enums, tables. */
export const invoiceSchema: JsonObject = {
  type: 'object',
  $defs: {
    party: {
      type: 'object',
      properties: {
        name: { type: ['string', 'null'] },
        address: { type: ['string', 'null'] },
      },
      required: ['name', 'address'],
      additionalProperties: false,
    },
  },
  properties: {
    invoice_number: { type: ['string', 'null'], title: 'Invoice Number' },
    invoice_date: { type: ['string', 'null'], format: 'date', description: 'Date of issue' },
    due_date: { type: ['string', 'null'], format: 'date' },
    vendor: { $ref: '#/$defs/party' },
    customer: { anyOf: [{ $ref: '#/$defs/party' }, { type: 'null' }], title: 'Bill To' },
    currency: { type: ['string', 'null'], enum: ['USD', 'EUR', 'GBP', null] },
    paid: { type: ['boolean', 'null'] },
    total: { type: ['number', 'null'], description: 'Total amount due' },
    item_count: { type: ['integer', 'null'] },
    line_items: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: {
          description: { type: ['string', 'null'] },
          quantity: { type: ['integer', 'null'], title: 'Qty' },
          unit_price: { type: ['number', 'null'] },
          amount: { type: ['number', 'null'] },
        },
        required: ['description', 'quantity', 'unit_price', 'amount'],
      },
    },
  },
  required: ['invoice_number', 'invoice_date', 'due_date', 'vendor', 'customer', 'currency', 'paid', 'total', 'item_count', 'line_items'],
};

export interface Case {
  name: string;
  filename: string;
  mime_type: string;
  text: string;
  schema: JsonObject;
  annotation: JsonObject;
}

const annotation1: JsonObject = {
  invoice_number: 'INV-2024-001',
  invoice_date: '2024-03-15',
  due_date: '2024-04-14',
  vendor: { name: 'Acme Supplies Ltd', address: '1 Industrial Way, Leeds' },
  customer: { name: 'Globex Corporation', address: '742 Evergreen Terrace, Springfield' },
  currency: 'USD',
  paid: false,
  total: 1234.5,
  item_count: 3,
  line_items: [
    { description: 'Steel bolts M8', quantity: 100, unit_price: 0.45, amount: 45 },
    { description: 'Hex nuts M8', quantity: 200, unit_price: 0.2, amount: 40 },
    { description: 'Installation service', quantity: 1, unit_price: 1149.5, amount: 1149.5 },
  ],
};

export const matchingCases: Case[] = [
  {
    name: 'plain text with sections and a Markdown table',
    filename: 'invoice-1.txt',
    mime_type: 'text/plain',
    schema: invoiceSchema,
    annotation: annotation1,
    text: `ACME SUPPLIES LTD — INVOICE

Invoice Number: INV-2024-001
Date of issue: 15/03/2024
Due Date: April 14, 2024
Currency: usd
Paid: No

Vendor
Name: Acme Supplies Ltd
Address: 1 Industrial Way, Leeds

Bill To:
Name: Globex Corporation
Address: 742 Evergreen Terrace, Springfield

Line items:
| Description | Qty | Unit Price | Amount |
|---|---:|---:|---:|
| Steel bolts M8 | 100 | $0.45 | $45.00 |
| Hex nuts M8 | 200 | $0.20 | $40.00 |
| Installation service | 1 | $1,149.50 | $1,149.50 |

Item count: 3
Total amount due: $1,234.50
`,
  },
  {
    name: 'other separators, cases and order, aligned columns, European numbers',
    filename: 'rechnung.txt',
    mime_type: 'text/plain',
    schema: invoiceSchema,
    annotation: { ...annotation1, currency: 'EUR', paid: true },
    text: `TOTAL = 1.234,50 €
ITEM-COUNT = 3
PAID = yes
currency = eur
invoiceNumber = INV-2024-001
INVOICE_DATE = 2024-03-15
due-date = 14.04.2024
Vendor Name = Acme Supplies Ltd
Vendor Address = 1 Industrial Way, Leeds
Customer Name = Globex Corporation
Customer Address = 742 Evergreen Terrace, Springfield

DESCRIPTION            QTY     UNIT PRICE     AMOUNT
Steel bolts M8         100     0,45           45,00
Hex nuts M8            200     0,20           40,00
Installation service   1       1.149,50       1.149,50
`,
  },
  {
    name: 'a JSON document with other key spellings and nesting',
    filename: 'invoice.json',
    mime_type: 'application/json',
    schema: invoiceSchema,
    annotation: annotation1,
    text: JSON.stringify({
      document: {
        InvoiceNumber: 'INV-2024-001',
        'Invoice Date': '2024-03-15',
        DueDate: '14 Apr 2024',
        Currency: 'usd',
        Paid: 'no',
        Total: '1,234.50',
        ItemCount: 3,
      },
      vendor: { Name: 'Acme Supplies Ltd', Address: '1 Industrial Way, Leeds' },
      customer: { name: 'Globex Corporation', address: '742 Evergreen Terrace, Springfield' },
      lineItems: [
        { Description: 'Steel bolts M8', Quantity: 100, UnitPrice: 0.45, Amount: 45 },
        { Description: 'Hex nuts M8', Quantity: '200', UnitPrice: '0.20', Amount: 40 },
        { Description: 'Installation service', Quantity: 1, UnitPrice: 1149.5, Amount: '1,149.50' },
      ],
    }),
  },
  {
    name: 'an HTML page with a definition list and a table',
    filename: 'invoice.html',
    mime_type: 'text/html',
    schema: invoiceSchema,
    annotation: annotation1,
    text: `<!doctype html><html><head><title>Invoice</title><style>td{color:red}</style></head><body>
<h1>Invoice</h1>
<dl><dt>Invoice No.</dt><dd>INV-2024-001</dd><dt>Invoice Date</dt><dd>2024-03-15</dd><dt>Due date</dt><dd>2024/04/14</dd></dl>
<p><b>Currency:</b> USD</p><p><b>Paid:</b> false</p>
<h2>Vendor</h2><p>Name: Acme Supplies Ltd<br>Address: 1 Industrial Way, Leeds</p>
<h2>Customer</h2><p>Name: Globex Corporation<br>Address: 742 Evergreen Terrace, Springfield</p>
<table><tr><th>Description</th><th>Quantity</th><th>Unit price</th><th>Amount</th></tr>
<tr><td>Steel bolts M8</td><td>100</td><td>0.45</td><td>45.00</td></tr>
<tr><td>Hex nuts M8</td><td>200</td><td>0.20</td><td>40.00</td></tr>
<tr><td>Installation service</td><td>1</td><td>1,149.50</td><td>1,149.50</td></tr></table>
<p>Item count: 3</p><p>Total: USD 1,234.50</p>
</body></html>`,
  },
  {
    name: 'Markdown with bold labels, headings and a CSV block',
    filename: 'invoice.md',
    mime_type: 'text/markdown',
    schema: invoiceSchema,
    annotation: annotation1,
    text: `# Invoice

- **Invoice #:** INV-2024-001
- **Invoice date:** 2024-03-15
- **Due date:** 2024-04-14
- **Currency:** USD
- **Paid:** n
- **Item count:** 3
- **Total:** 1234.50

## Vendor
Name: Acme Supplies Ltd
Address: 1 Industrial Way, Leeds

## Bill to
Name: Globex Corporation
Address: 742 Evergreen Terrace, Springfield

## Line items
description,quantity,unit_price,amount
Steel bolts M8,100,0.45,45.00
Hex nuts M8,200,0.20,40.00
"Installation service",1,1149.50,1149.50
`,
  },
  {
    name: 'a CSV file for an array of rows',
    filename: 'transactions.csv',
    mime_type: 'text/csv',
    schema: {
      type: 'object',
      properties: {
        transactions: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              date: { type: 'string', format: 'date' },
              payee: { type: 'string' },
              amount: { type: 'number' },
              cleared: { type: 'boolean' },
            },
            required: ['date', 'payee', 'amount', 'cleared'],
          },
        },
      },
      required: ['transactions'],
    },
    annotation: {
      transactions: [
        { date: '2024-01-02', payee: 'Coffee Roasters, Inc.', amount: -4.5, cleared: true },
        { date: '2024-01-03', payee: 'Payroll', amount: 2500, cleared: true },
        { date: '2024-01-05', payee: 'Electric Co', amount: -120.33, cleared: false },
      ],
    },
    text: `Date,Payee,Amount,Cleared
2024-01-02,"Coffee Roasters, Inc.",(4.50),Y
01/03/2024,Payroll,"2,500.00",yes
2024-01-05,Electric Co,-120.33,N
`,
  },
];

const personSchema: JsonObject = {
  type: 'object',
  properties: {
    full_name: { type: ['string', 'null'], title: 'Name' },
    email: { type: ['string', 'null'] },
    phone_number: { type: ['string', 'null'], description: 'Phone' },
    date_of_birth: { type: ['string', 'null'], format: 'date' },
    address: {
      type: ['object', 'null'],
      properties: { street: { type: ['string', 'null'] }, city: { type: ['string', 'null'] }, zip_code: { type: ['string', 'null'] } },
    },
    skills: { type: ['array', 'null'], items: { type: 'string' } },
    employed: { type: ['boolean', 'null'] },
  },
};

matchingCases.push(
  {
    name: 'a profile with dot leaders, a nested section and a list',
    filename: 'profile.txt',
    mime_type: 'text/plain',
    schema: personSchema,
    annotation: {
      full_name: 'Jane Q. Doe',
      email: 'jane@example.com',
      phone_number: '+1 (555) 010-2000',
      date_of_birth: '1990-07-07',
      address: { street: '12 Elm St', city: 'Portland', zip_code: '97201' },
      skills: ['TypeScript', 'Rust', 'SQL'],
      employed: true,
    },
    text: `CANDIDATE PROFILE
Name ........ Jane Q. Doe
E-mail: jane@example.com
Phone: +1 (555) 010-2000
Date of Birth: 7 July 1990

Address
Street: 12 Elm St
City: Portland
ZIP code: 97201

Skills: TypeScript, Rust, SQL
Employed: Yes`,
  },
  {
    name: 'a one-row tab-separated form',
    filename: 'contact.tsv',
    mime_type: 'text/tab-separated-values',
    schema: personSchema,
    annotation: { full_name: 'Bob Stone', email: 'bob@example.org', phone_number: '0123 456', employed: false },
    text: 'Name\tEmail\tPhone\tEmployed\nBob Stone\tbob@example.org\t0123 456\tno\n',
  },
);

export const unrelatedTexts: Array<{ filename: string; mime_type: string; text: string }> = [
  {
    filename: 'poem.txt',
    mime_type: 'text/plain',
    text: `The fog comes
on little cat feet.

It sits looking
over harbor and city
on silent haunches
and then moves on.`,
  },
  {
    filename: 'minutes.md',
    mime_type: 'text/markdown',
    text: `# Team meeting

Attendees: Ana, Bo, Chen
Location: Room 4
Decision - ship the beta on Friday

| Topic | Owner |
|---|---|
| Release notes | Ana |
| QA | Bo |
`,
  },
  {
    filename: 'config.json',
    mime_type: 'application/json',
    text: JSON.stringify({ port: 8080, debug: true, hosts: ['a', 'b'] }),
  },
];
