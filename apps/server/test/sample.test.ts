// The sample evaluation the standalone server offers (`POST /v1/evals/sample`, tRPC `evals.loadSample`, the web
// app's "Load the sample"): loaded into a real server over HTTP, every document labeled, both iterations scored, and
// its PDFs and images real files that a PDF reader and an image decoder read.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { pdfText } from '@docevals/openai';
import { describe, expect, it } from 'vitest';
import { sampleSpecs } from '../src/sample/index.js';
import { printedLines } from '../src/sample/render.js';
import { apiClient } from './support/api-client.js';
import { standaloneServers } from './support/standalone-servers.js';

const servers = standaloneServers('docevals-sample-');
const KEYS = 'key-sample-a:org_a,key-sample-b:org_b';

async function start() {
  const lines: string[] = [];
  const { url } = await servers.start({ DOCEVALS_SECRETS_KEY: process.env.DOCEVALS_SECRETS_KEY!, DOCEVALS_API_KEYS: KEYS }, { log: (line) => lines.push(line) });
  return { url, lines, a: apiClient(url, 'key-sample-a'), b: apiClient(url, 'key-sample-b') };
}

async function download(url: string, path: string): Promise<{ type: string; bytes: Buffer }> {
  const response = await fetch(`${url}${path}`, { headers: { 'api-key': 'key-sample-a' } });
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('the sample evaluation', () => {
  it('loads for the caller\'s organization: 32 labeled documents (text, PDF, PNG), two named iterations that score', async () => {
    const { url, lines, a, b } = await start();
    expect(lines.some((line) => line.includes(`curl -X POST -H 'Api-Key: <your key>' ${url}/v1/evals/sample`))).toBe(true);
    const loaded = await a('POST', '/v1/evals/sample');
    expect(loaded.status).toBe(200);
    const sample = loaded.body;
    expect(sample).toMatchObject({ name: 'Sample: invoices, receipts and forms', document_count: 32, unlabeled_count: 0 });
    expect(sample.iterations.map((it: { name: string }) => it.name)).toEqual(['Baseline prompt', 'Explicit dates and signs']);
    const [base, head] = sample.iterations.map((it: { metric_results: { mean_similarity: number; counts: Record<string, number> } }) => it.metric_results);
    expect(base.counts).toMatchObject({ succeeded: 28, failed: 4, pending: 0 });
    expect(head.counts).toMatchObject({ succeeded: 32, failed: 0, pending: 0 });
    expect(base.mean_similarity).toBeGreaterThan(0.6);
    expect(head.mean_similarity).toBeGreaterThan(base.mean_similarity);
    expect(head.mean_similarity).toBeLessThan(1);

    // Every document has its ground truth, as generated; the formats are all there.
    const listed = await a('GET', `/v1/evals/${sample.id}/documents?limit=100`);
    const documents: Array<{ id: string; mime_data: { filename: string } }> = listed.body.data;
    const names = documents.map((d) => d.mime_data.filename);
    expect(new Set(names).size).toBe(32);
    expect(names.map((name) => name.split('.').pop()).sort().filter((e, i, all) => all.indexOf(e) === i)).toEqual(['html', 'md', 'pdf', 'png', 'txt']);
    const specs = new Map(sampleSpecs().map((spec) => [spec.filename, spec]));
    for (const document of documents.slice(0, 32)) {
      const full = await a('GET', `/v1/evals/${sample.id}/documents/${document.id}`);
      expect(full.body.annotation).toEqual(specs.get(document.mime_data.filename)!.truth);
    }

    // A PDF: a real one, whose text layer PDF.js reads; an image: a PNG an image decoder draws, with dark text on it.
    const pdf = documents.find((d) => d.mime_data.filename.endsWith('.pdf'))!;
    const pdfFile = await download(url, `/v1/evals/${sample.id}/documents/${pdf.id}/content`);
    expect(pdfFile.type).toBe('application/pdf');
    const text = await pdfText(new Uint8Array(pdfFile.bytes));
    expect(text).toContain(specs.get(pdf.mime_data.filename)!.truth.invoice_number);
    const words = (line: string) => line.replace(/\s+/g, ' ').trim();
    expect(text.split('\n').map(words)).toEqual(printedLines(specs.get(pdf.mime_data.filename)!.truth).map(words).filter((line) => line !== ''));
    const png = documents.find((d) => d.mime_data.filename.endsWith('.png'))!;
    const pngFile = await download(url, `/v1/evals/${sample.id}/documents/${png.id}/content`);
    expect(pngFile.type).toBe('image/png');
    const image = await loadImage(pngFile.bytes);
    expect([image.width, image.height]).toEqual([699, 992]);
    const canvas = createCanvas(image.width, image.height);
    canvas.getContext('2d').drawImage(image, 0, 0);
    const pixels = canvas.getContext('2d').getImageData(0, 0, image.width, image.height).data;
    let dark = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 128) dark++;
    expect(dark).toBeGreaterThan(2000); // the receipt's lines are drawn, black on white
    expect(dark).toBeLessThan((image.width * image.height) / 5);

    // Only the caller's organization has it; a second load is a second evaluation.
    expect((await b('GET', `/v1/evals/${sample.id}`)).status).toBe(404);
    expect((await b('GET', '/v1/evals')).body.data).toEqual([]);
    const again = await fetch(`${url}/trpc/evals.loadSample`, { method: 'POST', headers: { 'api-key': 'key-sample-a', 'content-type': 'application/json' }, body: '{}' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { result: { data: { id: string } } }).result.data.id).not.toBe(sample.id);
    expect((await a('GET', '/v1/evals')).body.data).toHaveLength(2);
  });
});
