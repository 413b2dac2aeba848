// Page rendering for modality image: a one-page US Letter PDF (612 × 792 pt, one line of Helvetica) rendered to PNG
// at 72, 96, 144 and 300 dpi; a text document laid out on A4 at 96 dpi (1 and 5 pages); and the per-field
// likelihoods of a 200-line answer from its token logprobs. Median and best of 7 rounds after one untimed warm-up.
// Not a test: nothing fails on slow figures. Run: pnpm bench page-rendering
import { loadavg } from 'node:os';
import { likelihoodsFromLogprobs, renderPdfPages, renderTextPages } from '../src/index.js';
import { tinyPdf } from '../test/support/tiny-pdf.js';

const ROUNDS = 7;

async function time<T>(label: string, run: () => Promise<T> | T, describe: (r: T) => string = () => ''): Promise<void> {
  let result = await run();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    result = await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} best ${times[0]!.toFixed(1).padStart(7)} ms   median ${times[ROUNDS >> 1]!.toFixed(1).padStart(7)} ms   ${describe(result)}`);
}

const pdf = tinyPdf('Invoice Number: INV-77 Total: 42.50');
const pngInfo = (pages: Array<{ width: number; height: number; png: Uint8Array }>) =>
  pages.map((p) => `${p.width}×${p.height} px, ${(p.png.length / 1024).toFixed(1)} KiB`).join('; ');

console.log(`Node ${process.version}, ${process.platform}/${process.arch}, load average ${loadavg()[0]!.toFixed(1)}`);
for (const dpi of [72, 96, 144, 300]) await time(`PDF, 1 Letter page at ${dpi} dpi`, () => renderPdfPages(pdf, dpi), pngInfo);
const invoice = Array.from({ length: 40 }, (_, i) => `Line ${i + 1}: widget ${i}\t${(i * 3.5).toFixed(2)} EUR`).join('\n');
await time('text, 40 lines on A4 at 96 dpi', () => renderTextPages(invoice, 'A4', 96), (r) => (r ? `${r.length} page(s); ${pngInfo(r)}` : 'no font: sent as text'));
const long = Array.from({ length: 300 }, (_, i) => `Line ${i + 1}: widget ${i}\t${(i * 3.5).toFixed(2)} EUR`).join('\n');
await time('text, 300 lines on A4 at 96 dpi', () => renderTextPages(long, 'A4', 96), (r) => (r ? `${r.length} page(s)` : 'no font: sent as text'));

const answer = JSON.stringify({ lines: Array.from({ length: 200 }, (_, i) => ({ sku: `SKU-${i}`, qty: i, price: i * 1.25, note: 'ok' })) });
const tokens = (answer.match(/[{}[\]:,"]|[^{}[\]:,"]+/g) ?? []).map((token) => ({ token, logprob: -0.01 }));
await time(`likelihoods, 200 lines (${tokens.length} tokens)`, () => likelihoodsFromLogprobs(answer, tokens), (r) => `${Array.isArray(r?.lines) ? r.lines.length : 0} lines`);
