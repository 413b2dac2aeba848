import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  csvHeader,
  csvLines,
  documentFields,
  exportRows,
  FieldSummaryBuilder,
  fieldOf,
  IterationComparer,
  jsonLines,
  leaderboard,
  parseAnnotations,
  parseAnnotationsPaced,
  neutralizeCell,
  schemaLeafFields,
  BOOTSTRAP_RESAMPLES,
  CalibrationBuilder,
  pairedBootstrap,
  type AnalysisPrediction,
  type LeaderboardIteration,
} from '../../src/analysis/index.js';
import type { JsonObject } from '../../src/json/assert-json.js';
import { compareDocuments } from '../../src/metrics/index.js';
import { LIMITS } from '../../src/limits.js';

const schema: JsonObject = {
  type: 'object',
  properties: {
    vendor: { type: 'string' },
    total: { type: 'number' },
    paid: { type: 'boolean' },
    line_items: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' }, amount: { type: 'integer' } } },
    },
  },
};

function succeeded(annotation: JsonObject, prediction: JsonObject, cost: number | null = null): AnalysisPrediction {
  return { status: 'succeeded', prediction, metrics: compareDocuments(annotation, prediction), cost };
}

describe('field paths', () => {
  it('collapses list indices by the values, not by the look of the segment', () => {
    expect(fieldOf('line_items.3.amount', { line_items: [{}, {}, {}, { amount: 1 }] }, {})).toBe('line_items.*.amount');
    // A key made of digits in an object stays a key.
    expect(fieldOf('by_year.2024', { by_year: { '2024': 1 } }, {})).toBe('by_year.2024');
    // Where the annotation has nothing, the prediction says it was a list.
    expect(fieldOf('line_items.0.sku', {}, { line_items: [{ sku: 'x' }] })).toBe('line_items.*.sku');
    // Escaped dots stay escaped.
    expect(fieldOf('a~1b', { 'a.b': 1 }, {})).toBe('a~1b');
  });

  it('reads the leaf fields of a schema with list items collapsed', () => {
    expect(schemaLeafFields(schema)).toEqual(['vendor', 'total', 'paid', 'line_items.*.sku', 'line_items.*.amount']);
  });
});

describe('per-field summary', () => {
  it('scores each field per document, classifies it, and sorts worst first', () => {
    const docs: Array<{ a: JsonObject; p: JsonObject }> = [
      { a: { vendor: 'ACME', total: 10, line_items: [{ sku: 'A', amount: 1 }, { sku: 'B', amount: 2 }] }, p: { vendor: 'ACME', total: 10, line_items: [{ sku: 'A', amount: 1 }, { sku: 'B', amount: 2 }] } },
      { a: { vendor: 'Globex', total: 20, line_items: [{ sku: 'C', amount: 3 }] }, p: { vendor: 'Globex', line_items: [{ sku: 'C', amount: 4 }] } },
      { a: { vendor: 'Initech', line_items: [] }, p: { vendor: 'Initech', total: 5, paid: true, line_items: [] } },
    ];
    const builder = new FieldSummaryBuilder(schema);
    docs.forEach((d, i) => builder.add({ id: `d${i}`, filename: `${i}.pdf`, annotation: d.a }, succeeded(d.a, d.p)));
    builder.add({ id: 'pending', filename: 'p.pdf', annotation: { total: 1 } }, { status: 'pending' });
    const summary = builder.result();
    expect(summary.documents).toBe(3);
    const byField = Object.fromEntries(summary.fields.map((f) => [f.field, f]));
    expect(byField.vendor).toMatchObject({ documents: 3, mean_similarity: 1, exact: 3, partial: 0, missing: 0, unexpected: 0 });
    // total: exact in doc 0, missing in doc 1 (annotation 20, prediction absent), unexpected in doc 2.
    expect(byField.total).toMatchObject({ documents: 3, exact: 1, missing: 1, unexpected: 1, partial: 0 });
    expect(byField.total!.mean_similarity).toBeCloseTo(1 / 3, 12);
    // amount: doc 0 both right (1), doc 1 wrong number (3 vs 4: partial).
    expect(byField['line_items.*.amount']!.exact).toBe(1);
    expect(byField['line_items.*.amount']!.partial).toBe(1);
    // paid: scored only where the prediction has it (doc 2: unexpected).
    expect(byField.paid).toMatchObject({ documents: 1, mean_similarity: 0, unexpected: 1 });
    // Worst first: paid (0) before total (1/3) before vendor (1).
    const order = summary.fields.map((f) => f.field);
    expect(order.indexOf('paid')).toBeLessThan(order.indexOf('total'));
    expect(order.indexOf('total')).toBeLessThan(order.indexOf('vendor'));
  });

  it('lists schema fields no document scored, last', () => {
    const builder = new FieldSummaryBuilder(schema);
    builder.add({ id: 'd', filename: 'd.pdf', annotation: { vendor: 'x' } }, succeeded({ vendor: 'x' }, { vendor: 'y' }));
    const fields = builder.result().fields;
    expect(fields[0]).toMatchObject({ field: 'vendor', mean_similarity: 0 });
    expect(fields.at(-1)!.mean_similarity).toBeNull();
  });

  it('uses the aligned scores for the aligned mean', () => {
    const a = { line_items: [{ sku: 'alpha' }, { sku: 'beta' }] };
    const p = { line_items: [{ sku: 'beta' }, { sku: 'alpha' }] };
    const [field] = documentFields(a, p, compareDocuments(a, p));
    expect(field!.field).toBe('line_items.*.sku');
    expect(field!.aligned_similarity).toBe(1);
    expect(field!.similarity!).toBeLessThan(0.5);
  });
});

describe('comparison of two iterations', () => {
  const documents = [
    { id: 'd1', filename: 'one.pdf', annotation: { vendor: 'ACME', total: 10 } },
    { id: 'd2', filename: 'two.pdf', annotation: { vendor: 'Globex', total: 20 } },
    { id: 'd3', filename: 'three.pdf', annotation: { vendor: 'Initech', total: 30 } },
    { id: 'd4', filename: 'four.pdf', annotation: { vendor: 'Umbrella', total: 40 } },
  ];
  const base = [
    succeeded(documents[0]!.annotation, { vendor: 'ACME', total: 10 }, 0.01),
    succeeded(documents[1]!.annotation, { vendor: 'Globex', total: 20 }, 0.01),
    succeeded(documents[2]!.annotation, { vendor: 'Initech', total: 99 }, 0.01),
    succeeded(documents[3]!.annotation, { vendor: 'Umbrella', total: 40 }, 0.01),
  ];
  const head: AnalysisPrediction[] = [
    succeeded(documents[0]!.annotation, { vendor: 'ACME', total: 11 }, 0.02), // total regressed
    succeeded(documents[1]!.annotation, { vendor: 'Globex', total: 20 }, 0.02), // unchanged
    succeeded(documents[2]!.annotation, { vendor: 'Initech', total: 30 }, 0.02), // total improved
    { status: 'failed', prediction: {}, metrics: null, cost: null, error: 'timeout' }, // counts 0
  ];

  it('puts the regressed field first, lists regressed and improved documents exactly, counts a failed one as 0', () => {
    const comparer = new IterationComparer({ jsonSchema: schema });
    documents.forEach((d, i) => comparer.add(d, base[i]!, head[i]!));
    const c = comparer.result();
    expect(c.compared_documents).toBe(4);
    expect(c.excluded).toEqual([]);
    expect(c.head_counts).toEqual({ succeeded: 3, failed: 1, unlabeled: 0, pending: 0 });
    const t1 = compareDocuments(documents[0]!.annotation, { vendor: 'ACME', total: 11 }).flat_similarities.total!;
    const t3 = compareDocuments(documents[2]!.annotation, { vendor: 'Initech', total: 99 }).flat_similarities.total!;
    const total = c.fields.find((f) => f.field === 'total')!;
    expect(total.base_mean).toBeCloseTo((1 + 1 + t3 + 1) / 4, 12);
    expect(total.head_mean).toBeCloseTo((t1 + 1 + 1 + 0) / 4, 12);
    expect(total.delta).toBeCloseTo((t1 - t3 - 1) / 4, 12);
    expect(total.paired).toMatchObject({ n: 4, delta: expect.closeTo((t1 - t3 - 1) / 4, 12) });
    expect(c.regressed.map((d) => d.document_id)).toEqual(['d4', 'd1']);
    expect(c.documents.find((d) => d.document_id === 'd4')).toMatchObject({ base_similarity: 1, head_similarity: 0, delta: -1 });
    expect(c.improved.map((d) => d.document_id)).toEqual(['d3']);
    expect(c.documents.map((d) => d.document_id)).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(c.failures).toEqual({ base: 0, head: 1, delta: 1 });
    expect(c.cost.base).toBeCloseTo(0.04, 12);
    expect(c.cost.head).toBeCloseTo(0.06, 12);
  });

  it('orders fields most regressed first', () => {
    const comparer = new IterationComparer();
    const d = { id: 'd', filename: 'd.pdf', annotation: { vendor: 'ACME', total: 10 } };
    comparer.add(d, succeeded(d.annotation, { vendor: 'ACME', total: 10 }), succeeded(d.annotation, { vendor: 'zzzz', total: 10 }));
    const c = comparer.result();
    expect(c.fields[0]).toMatchObject({ field: 'vendor', base_mean: 1, head_mean: 0, delta: -1 });
    expect(c.moved_fields.map((f) => f.field)).toEqual(['vendor']);
    expect(c.regressed).toHaveLength(1);
  });

  it('counts a change below the threshold as unchanged', () => {
    const comparer = new IterationComparer({ threshold: 0.6 });
    const d = { id: 'd', filename: 'd.pdf', annotation: { vendor: 'ACME', total: 10 } };
    comparer.add(d, succeeded(d.annotation, d.annotation), succeeded(d.annotation, { vendor: 'ACME' }));
    expect(comparer.result().regressed).toEqual([]);
  });

  it('leaves unlabeled and pending documents out, naming them', () => {
    const comparer = new IterationComparer();
    const d = { id: 'd', filename: 'd.pdf', annotation: {} };
    const e = { id: 'e', filename: 'e.pdf', annotation: { total: 1 } };
    comparer.add(d, succeeded({}, { total: 1 }), succeeded({}, { total: 2 }));
    comparer.add(e, succeeded(e.annotation, { total: 1 }), { status: 'pending' });
    const c = comparer.result();
    expect(c.compared_documents).toBe(0);
    expect(c.excluded.map((x) => [x.document_id, x.base_status, x.head_status])).toEqual([['d', 'unlabeled', 'unlabeled'], ['e', 'succeeded', 'pending']]);
    expect(c.mean_similarity.paired).toBeNull();
    expect(c.base_counts).toEqual({ succeeded: 1, failed: 0, unlabeled: 1, pending: 0 });
  });
});

describe('paired bootstrap', () => {
  const forty = (f: (i: number) => number) => Array.from({ length: 40 }, (_, i) => f(i));

  it('one document of 40 off by 0.01 is not significant; a drop on 30 of 40 is, its interval excluding 0', () => {
    const one = pairedBootstrap(forty((i) => (i === 0 ? -0.01 : 0)))!;
    expect(one).toMatchObject({ n: 40, significant: false });
    expect(one.delta).toBeCloseTo(-0.01 / 40, 15);
    expect(one.ci_low).toBeLessThan(0);
    expect(one.ci_high).toBe(0);
    const drop = pairedBootstrap(forty((i) => (i < 30 ? -0.5 : 0)))!;
    expect(drop.significant).toBe(true);
    expect(drop.ci_high).toBeLessThan(0);
    expect(drop.ci_low).toBeLessThanOrEqual(drop.delta);
    expect(drop.ci_high).toBeGreaterThanOrEqual(drop.delta);
  });

  it('is seeded: the same input gives the same interval, another seed another one; null without documents', () => {
    const d = forty((i) => Math.sin(i) / 10);
    expect(pairedBootstrap(d)).toEqual(pairedBootstrap(d));
    expect(pairedBootstrap(d, { seed: 7 })!.ci_low).not.toBe(pairedBootstrap(d)!.ci_low);
    expect(pairedBootstrap([])).toBeNull();
    expect(BOOTSTRAP_RESAMPLES).toBeGreaterThanOrEqual(2000);
  });
});

describe('calibration', () => {
  it('a perfectly calibrated synthetic case gives ECE < 0.05, an always-confident wrong one > 0.5', () => {
    const calibrated = new CalibrationBuilder();
    // In each bin, leaves at likelihood p are exact a share p of the time.
    for (let bin = 0; bin < 10; bin++) {
      const p = (bin + 0.5) / 10;
      for (let k = 0; k < 100; k++) calibrated.add(p, k < p * 100);
    }
    const good = calibrated.result()!;
    expect(good.ece).toBeLessThan(0.05);
    expect(good.bins.reduce((n, b) => n + b.count, 0)).toBe(1000);
    expect(good.bins[3]).toMatchObject({ lower: 0.3, upper: 0.4, count: 100, mean_likelihood: expect.closeTo(0.35, 12), exact_rate: 0.35 });
    const confident = new CalibrationBuilder();
    for (let k = 0; k < 50; k++) confident.add(1, false);
    confident.add(0.95, true);
    const bad = confident.result()!;
    expect(bad.ece).toBeGreaterThan(0.5);
    expect(bad.ece).toBeLessThanOrEqual(1);
    expect(bad.bins[9]!.count).toBe(51);
    expect(bad.bins[0]).toEqual({ lower: 0, upper: 0.1, count: 0, mean_likelihood: null, exact_rate: null });
    expect(new CalibrationBuilder().result()).toBeNull();
  });

  it('the field summary puts every scored leaf with a likelihood in its field and overall; a failed document counts 0 on its fields', () => {
    const builder = new FieldSummaryBuilder(schema);
    const annotation = { vendor: 'ACME', total: 10 };
    const prediction = { vendor: 'ACME', total: 12 };
    builder.add({ id: 'a', filename: 'a', annotation }, { status: 'succeeded', prediction, metrics: compareDocuments(annotation, prediction), cost: null, likelihoods: { vendor: 1, total: 0.9 } });
    builder.add({ id: 'b', filename: 'b', annotation }, { status: 'failed', prediction: {}, metrics: null, cost: null, error: 'x' });
    builder.add({ id: 'c', filename: 'c', annotation: {} }, succeeded({}, prediction));
    const r = builder.result();
    expect(r.counts).toEqual({ succeeded: 1, failed: 1, unlabeled: 1, pending: 0 });
    expect(r.documents).toBe(2);
    expect(r.calibration!.bins[9]!.count).toBe(2);
    const vendor = r.fields.find((f) => f.field === 'vendor')!;
    expect(vendor).toMatchObject({ documents: 2, mean_similarity: 0.5, exact: 1, failed: 1 });
    expect(vendor.calibration!.ece).toBe(0);
    expect(r.fields.find((f) => f.field === 'total')!.calibration!.bins[9]).toMatchObject({ count: 1, exact_rate: 0 });
    expect(r.fields.find((f) => f.field === 'paid')!.calibration).toBeNull();
  });
});

describe('leaderboard', () => {
  const it0: LeaderboardIteration = {
    id: 'i1', model: 'gpt-4o', inference_settings: { model: 'gpt-4o', temperature: 0, n_consensus: 1 }, status: 'completed',
    created_at: '2026-01-01T00:00:00.000Z', started_at: '2026-01-01T00:00:00.000Z', finished_at: '2026-01-01T00:00:02.500Z',
    mean_similarity: 0.8, aligned_mean_similarity: 0.85, succeeded: 10, failed: 0, pending: 0, cost: 0.5,
  };
  const rows = [
    it0,
    { ...it0, id: 'i2', model: 'gpt-4o-mini', inference_settings: { model: 'gpt-4o-mini', temperature: 0, n_consensus: 1 }, mean_similarity: 0.9, cost: 0.1, created_at: '2026-01-02T00:00:00.000Z' },
    { ...it0, id: 'i3', status: 'running', mean_similarity: 1 },
    { ...it0, id: 'i4', inference_settings: { model: 'gpt-4o', temperature: 0.5, n_consensus: 1 }, mean_similarity: null, cost: null, created_at: '2026-01-03T00:00:00.000Z' },
  ];

  it('ranks completed iterations, best mean first, nulls last, with only the settings that differ', () => {
    const board = leaderboard(rows);
    expect(board.rows.map((r) => r.iteration_id)).toEqual(['i2', 'i1', 'i4']);
    expect(board.rows.map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(board.differing_settings).toEqual(['model', 'temperature']);
    expect(board.rows[1]!.settings).toEqual({ model: 'gpt-4o', temperature: 0 });
    expect(board.rows[1]!.duration_ms).toBe(2500);
  });

  it('sorts by cost ascending by default for cost', () => {
    expect(leaderboard(rows, { sort: 'cost' }).rows.map((r) => r.iteration_id)).toEqual(['i2', 'i1', 'i4']);
    expect(leaderboard(rows, { sort: 'cost', order: 'desc' }).rows.map((r) => r.iteration_id)).toEqual(['i1', 'i2', 'i4']);
  });
});

describe('export rows', () => {
  const annotation = { vendor: 'Café "Zürich"\nLtd', total: 10, line_items: [{ sku: 'a,b' }] };
  const prediction = { vendor: 'Cafe Zurich, Ltd', total: 12, line_items: [{ sku: 'a,b' }] };

  it('has one row per scored leaf, with both values and both scores', () => {
    const rows = exportRows({ id: 'file_1', filename: 'ä.pdf', annotation }, succeeded(annotation, prediction));
    expect(rows.map((r) => r.field)).toEqual(['vendor', 'total', 'line_items.0.sku']);
    expect(rows[1]).toMatchObject({ annotation: 10, prediction: 12, status: 'succeeded' });
    expect(rows[2]).toMatchObject({ similarity: 1, aligned_similarity: 1 });
  });

  it('round-trips through a CSV parser: quotes, commas, newlines, Unicode', () => {
    const rows = exportRows({ id: 'file_1', filename: 'ä.pdf', annotation }, succeeded(annotation, prediction));
    const text = csvHeader() + csvLines(rows);
    const parsed = parse(text, { columns: true }) as Array<Record<string, string>>;
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toMatchObject({ document_id: 'file_1', filename: 'ä.pdf', field: 'vendor', annotation: annotation.vendor, prediction: prediction.vendor });
    expect(Number(parsed[1]!.similarity)).toBe(rows[1]!.similarity);
    expect(parsed[2]!.annotation).toBe('a,b');
  });

  it('lists a pending document with its annotation leaves and no scores; JSONL keeps types', () => {
    const rows = exportRows({ id: 'file_2', filename: 'b.pdf', annotation: { total: 3, tags: [] } }, { status: 'pending' });
    expect(rows).toEqual([
      { document_id: 'file_2', filename: 'b.pdf', status: 'pending', field: 'total', annotation: 3, prediction: null, similarity: null, aligned_similarity: null, outcome: 'pending' },
      { document_id: 'file_2', filename: 'b.pdf', status: 'pending', field: 'tags', annotation: [], prediction: null, similarity: null, aligned_similarity: null, outcome: 'pending' },
    ]);
    expect(jsonLines(rows).split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual(rows);
  });
});

describe('annotation files', () => {
  it('reads JSON Lines by document_id or filename and refuses bad lines with their line number', () => {
    const text = '{"document_id":"file_1","annotation":{"total":3}}\n\n{"filename":"b.pdf","annotation":{"vendor":"x"}}\nnot json\n{"annotation":{}}\n';
    const rows = parseAnnotations(text, 'jsonl', schema);
    expect(rows.map((r) => r.row)).toEqual([1, 3, 4, 5]);
    expect(rows[0]).toEqual({ row: 1, document_id: 'file_1', annotation: { total: 3 }, issues: [] });
    expect(rows[1]).toMatchObject({ filename: 'b.pdf', annotation: { vendor: 'x' } });
    expect(rows[2]!.annotation).toBeUndefined();
    expect(rows[2]!.issues[0]!.message).toMatch(/not JSON/);
    expect(rows[3]!.issues[0]!.message).toMatch(/document_id/);
  });

  it('reads CSV with one column per leaf path, typed by the schema', () => {
    const text = 'filename,vendor,total,paid,line_items.0.sku,line_items.1.amount\n"a.pdf","ACME, Inc",12.5,true,X,3\nb.pdf,,abc,,,\n';
    const rows = parseAnnotations(text, 'csv', schema);
    expect(rows[0]).toEqual({
      row: 1,
      filename: 'a.pdf',
      annotation: { vendor: 'ACME, Inc', total: 12.5, paid: true, line_items: [{ sku: 'X' }, { amount: 3 }] },
      issues: [],
    });
    expect(rows[1]!.annotation).toBeUndefined();
    expect(rows[1]!.issues).toEqual([{ path: '2.total', message: '"abc" is not number' }]);
  });

  it('refuses a CSV without a document column', () => {
    expect(parseAnnotations('vendor\nx\n', 'csv', schema)[0]!.issues[0]!.message).toMatch(/document_id or a filename/);
  });

  it('refuses a CSV list index past the schema\'s maxItems or the import bound before building the list', () => {
    const bounded: JsonObject = { type: 'object', properties: { items: { type: 'array', maxItems: 3, items: { type: 'string' } }, line_items: schema.properties!['line_items' as never] } };
    const text = `document_id,items.2,items.3,line_items.99999.sku,line_items.${LIMITS.maxImportListItems - 1}.sku\nfile_1,a,b,c,d\nfile_2,a,,,d\n`;
    const rows = parseAnnotations(text, 'csv', bounded);
    expect(rows[0]!.annotation).toBeUndefined();
    expect(rows[0]!.issues.map((i) => i.path)).toEqual(['1.items.3', '1.line_items.99999.sku']);
    expect(rows[0]!.issues[0]!.message).toMatch(/at most 3 items/);
    expect(rows[1]!.issues).toEqual([]);
    expect((rows[1]!.annotation!.line_items as unknown[]).length).toBe(LIMITS.maxImportListItems);
  });

  it('refuses annotations no reader would take: nested past 64 levels, a __proto__ key, a column path deeper than 64', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { a: deep };
    const jsonl = `{"document_id":"file_1","annotation":${JSON.stringify(deep)}}\n{"document_id":"file_2","annotation":{"x":{"__proto__":{"y":1}}}}\n`;
    const rows = parseAnnotations(jsonl, 'jsonl', schema);
    expect(rows.map((r) => r.annotation)).toEqual([undefined, undefined]);
    expect(rows[0]!.issues[0]!.message).toMatch(/deeper than 64/);
    expect(rows[1]!.issues[0]).toEqual({ path: '2.annotation.x.__proto__', message: expect.stringMatching(/__proto__/) });
    const csv = `document_id,${Array.from({ length: 65 }, () => 'a').join('.')},__proto__.b\nfile_1,1,2\n`;
    const [row] = parseAnnotations(csv, 'csv', schema);
    expect(row!.annotation).toBeUndefined();
    expect(row!.issues.map((i) => i.message)).toEqual([expect.stringMatching(/deeper than 64/), expect.stringMatching(/__proto__/)]);
  });

  it('parses paced (a slice at a time) to the same rows as at once, and stops after maxRows', async () => {
    const csvBody = Array.from({ length: 3_000 }, (_, i) => `d${i}.pdf,"V, ${i}",${i},true,S${i},${i}`).join('\n');
    const csv = `filename,vendor,total,paid,line_items.0.sku,line_items.1.amount\n${csvBody}\n`;
    expect(csv.length).toBeGreaterThan(64 * 1024); // several slices
    let paces = 0;
    const pace = () => {
      paces += 1;
    };
    const paced = await parseAnnotationsPaced(csv, 'csv', schema, { maxRows: 10_000, pace });
    expect(paced).toEqual({ rows: parseAnnotations(csv, 'csv', schema), over: null });
    expect(paces).toBeGreaterThan(1);
    const jsonl = Array.from({ length: 50 }, (_, i) => JSON.stringify({ document_id: `file_${i}`, annotation: { total: i } })).join('\r\n');
    expect((await parseAnnotationsPaced(jsonl, 'jsonl', schema, { maxRows: 50 })).rows).toEqual(parseAnnotations(jsonl, 'jsonl', schema));
    expect(await parseAnnotationsPaced(jsonl, 'jsonl', schema, { maxRows: 49 })).toMatchObject({ over: expect.stringMatching(/rows per import/) });
    expect(await parseAnnotationsPaced(csv, 'csv', schema, { maxRows: 2_999 })).toMatchObject({ over: expect.stringMatching(/rows per import/) });
    expect((await parseAnnotationsPaced('a,"b\n', 'csv', schema, { maxRows: 5 })).rows[0]!.issues[0]!.message).toMatch(/cannot be read/);
    expect((await parseAnnotationsPaced('vendor\nx\n', 'csv', schema, { maxRows: 5 })).rows[0]!.issues[0]!.path).toBe('header');
    expect(await parseAnnotationsPaced('', 'csv', schema, { maxRows: 5 })).toEqual({ rows: [], over: null });
    const cells = await parseAnnotationsPaced(csv, 'csv', schema, { maxRows: 10_000, maxCells: 6 * 1_000 });
    expect(cells).toEqual({ rows: [], over: expect.stringMatching(/at most 6000 cells .* 3000 rows of 6 columns/) });
  });
});

describe('CSV exports are safe to open in a spreadsheet', () => {
  const formulas = ['=1+1', '+1', '-1+2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil","x")'];

  it('neutralizes text cells beginning with = + - @ tab or CR with a leading quote, unless raw; JSONL and numbers stay raw', () => {
    expect(formulas.map(neutralizeCell)).toEqual(formulas.map((f) => `'${f}`));
    expect(['a=1', ' =1', "'=1", '', '1'].map(neutralizeCell)).toEqual(['a=1', ' =1', "'=1", '', '1']);
    const rows = exportRows(
      { id: 'file_1', filename: '=cmd.pdf', annotation: { '-f': '=1+1', n: -5 } },
      succeeded({ '-f': '=1+1', n: -5 }, { '-f': '@x', n: -5 }),
    );
    const cells = parse(csvLines(rows)) as string[][];
    expect(cells.map((r) => [r[1], r[3], r[4], r[5]])).toEqual([
      ["'=cmd.pdf", "'-f", "'=1+1", "'@x"],
      ["'=cmd.pdf", 'n', '-5', '-5'],
    ]);
    const raw = parse(csvLines(rows, { raw: true })) as string[][];
    expect(raw.map((r) => [r[1], r[3], r[4], r[5]])).toEqual([
      ['=cmd.pdf', '-f', '=1+1', '@x'],
      ['=cmd.pdf', 'n', '-5', '-5'],
    ]);
    expect(JSON.parse(jsonLines(rows).split('\n')[0]!)).toMatchObject({ filename: '=cmd.pdf', annotation: '=1+1', prediction: '@x' });
  });
});
