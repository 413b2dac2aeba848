import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aesGcmCipher, apiKeyAuthenticator, createDocevals, generateMasterKey, localRulesExtractor, parseMasterKey, type Docevals, type Extractor } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { createRestHandler } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const entry = join(root, 'packages/cli/src/cli.ts');

/**
 * The command line the tests run: the CLI's entry through tsx with the workspace's paths (what `pnpm docevals`
 * runs, no build step), or with `DOCEVALS_CLI_TEST=dist` the built binary (`pnpm build` first).
 */
export const cliCommand =
  process.env.DOCEVALS_CLI_TEST === 'dist'
    ? [process.execPath, join(root, 'packages/cli/dist/cli.js')]
    : [tsx, '--tsconfig', join(root, 'tsconfig.json'), entry];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `docevals ...args` as a subprocess without a TTY (stdin: `input`, then closed; `stdinOpen`: left open, as a
 * person who has not typed yet; the command is killed after `timeoutMs`, its code then 1).
 */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; stdinOpen?: boolean; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      cliCommand[0],
      [...cliCommand.slice(1), ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, NO_COLOR: '1', DOCEVALS_URL: '', DOCEVALS_API_KEY: '', ...options.env },
        maxBuffer: 64 * 1024 * 1024,
        ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (!options.stdinOpen) child.stdin?.end(options.input ?? '');
  });
}

/** Starts `docevals ...args` and hands back the process (for signals). */
export function spawnCli(args: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
  return spawn(cliCommand[0], [...cliCommand.slice(1), ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The schema of the generated documents. */
export const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: ['string', 'null'], description: 'Invoice number' },
    total: { type: ['number', 'null'], description: 'Total' },
    vendor: { type: ['string', 'null'], description: 'Vendor' },
  },
};

const crc32Table = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = crc32Table[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};

/** A valid 1×1 grayscale PNG whose one pixel is `shade` (so each image has its own content). */
export function png(shade: number): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  // zlib stream of one scanline [filter 0, shade], stored uncompressed.
  const raw = Buffer.from([0, shade]);
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((2 + shade) * 65536 + 1 + shade) >>> 0); // Adler-32 of [0, shade]: b = 2 + shade, a = 1 + shade
  const idat = Buffer.concat([Buffer.from([0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff]), raw, adler]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A one-page PDF written by hand (objects, xref with exact offsets, trailer) showing `text`. */
export function pdf(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export interface Dataset {
  folder: string;
  schema: string;
  annotations: string;
  /** filename → annotation */
  truth: Map<string, Record<string, unknown>>;
}

/**
 * 20 files: 16 text invoices, 2 PNGs and 2 PDFs, with a JSONL of annotations (the images' and PDFs' annotations are
 * all null: local-rules reads text only, so it predicts null there and every document scores).
 */
export async function writeDataset(dir: string, count = { text: 16, png: 2, pdf: 2 }, start = 1): Promise<Dataset> {
  const folder = join(dir, 'documents');
  await mkdir(join(folder, 'scans'), { recursive: true });
  const truth = new Map<string, Record<string, unknown>>();
  for (let i = start; i < start + count.text; i++) {
    const name = `invoice-${String(i).padStart(2, '0')}.txt`;
    await writeFile(join(folder, name), `Invoice number: INV-${i}\nTotal: ${i * 10}.50\nVendor: Acme ${i}\n`);
    truth.set(name, { invoice_number: `INV-${i}`, total: i * 10 + 0.5, vendor: `Acme ${i}` });
  }
  for (let i = 0; i < count.png; i++) {
    const name = `scans/scan-${start + i}.png`;
    await writeFile(join(folder, name), png(start * 7 + i * 40));
    truth.set(name, { invoice_number: null, total: null, vendor: null });
  }
  for (let i = 0; i < count.pdf; i++) {
    const name = `invoice-${start + i}.pdf`;
    await writeFile(join(folder, name), pdf(`Invoice number: PDF-${start + i}`));
    truth.set(name, { invoice_number: null, total: null, vendor: null });
  }
  const schema = join(dir, 'schema.json');
  await writeFile(schema, JSON.stringify(SCHEMA));
  const annotations = join(dir, 'annotations.jsonl');
  await writeFile(annotations, [...truth].map(([filename, annotation]) => JSON.stringify({ filename, annotation })).join('\n') + '\n');
  return { folder, schema, annotations, truth };
}

/** local-rules with every invoice number wrong: a real extractor the server serves, for a seeded regression. */
export function degradedExtractor(model = 'local-rules-degraded'): Extractor {
  const inner = localRulesExtractor();
  return {
    name: 'degraded',
    models: [model],
    async extract(request) {
      const output = await inner.extract(request);
      const data = output.data as Record<string, unknown>;
      return { ...output, data: { ...data, invoice_number: typeof data.invoice_number === 'string' ? `${data.invoice_number}-WRONG` : data.invoice_number } };
    },
  };
}

/** local-rules, 600 ms per document (3 s for 20 at concurrency 4): long enough to interrupt. */
export function slowExtractor(model = 'local-rules-slow'): Extractor {
  const inner = localRulesExtractor();
  return {
    name: 'slow',
    models: [model],
    async extract(request) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      return inner.extract(request);
    },
  };
}

export const API_KEY = 'dk_cli_tests_0123456789';
export const ORG = 'org_cli';

export interface TestServer {
  url: string;
  docevals: Docevals;
  /** `METHOD /path` of every request the server answered. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * The standalone server's parts: the service on lowdb in `dataDir`, the REST handler, node http on 127.0.0.1:0.
 * `legacy`: the server of before background jobs: `"background"` is dropped from an iteration create, so it
 * answers 200 once the iteration is done. `secrets`: organization secrets on, under a fresh master key.
 * `extractors`: served before the usual ones.
 */
export async function startServer(dataDir: string, options: { legacy?: boolean; secrets?: boolean; extractors?: Extractor[] } = {}): Promise<TestServer> {
  const docevals = createDocevals({
    storage: lowdbStorage({ dir: dataDir }),
    ...(options.secrets ? { secrets: { cipher: await aesGcmCipher([parseMasterKey(generateMasterKey())]) } } : {}),
    extractors: [...(options.extractors ?? []), localRulesExtractor(), degradedExtractor(), slowExtractor()],
    extraction: { concurrency: 4 },
  });
  const rest = createRestHandler({ docevals, authenticate: apiKeyAuthenticator({ keys: { [API_KEY]: ORG } }), onError: () => undefined });
  const handler = toNodeHandler(async (request) => {
    if (!options.legacy || request.method !== 'POST' || !request.url.endsWith('/iterations/create')) return rest(request);
    const { background: _dropped, ...body } = (await request.json()) as Record<string, unknown>;
    return rest(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }));
  });
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url!, 'http://x').pathname}`);
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    docevals,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await docevals.close();
    },
  };
}
