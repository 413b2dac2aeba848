import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Live memory, not garbage waiting for a collection: the test collects before each measurement.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
import { startRestServer, type RestServer } from './support/rest-server.js';

const DOCUMENTS = 10_000;
const FIELDS = 50;

let api: RestServer;
let evaluationId: string;
let iterationId: string;

/** A 50-field record whose values are long enough that the whole CSV is far larger than what the test allows to grow. */
function record(i: number, variant: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let f = 0; f < FIELDS; f++) out[`field_${f}`] = `${variant} value ${i}-${f} `.padEnd(60, 'x');
  return out;
}

beforeAll(async () => {
  api = await startRestServer();
  const properties = Object.fromEntries(Array.from({ length: FIELDS }, (_, f) => [`field_${f}`, { type: 'string' }]));
  const documents = Array.from({ length: DOCUMENTS }, (_, i) => ({
    mime_data: { filename: `doc-${i}.txt`, url: `data:text/plain;base64,${Buffer.from(`document ${i}`).toString('base64')}` },
    annotation: record(i, 'true'),
  }));
  const evaluation = await api.docevals.evals.create('org_a', {
    name: 'Large',
    json_schema: { type: 'object', properties },
    documents,
    iterations: [{ inference_settings: { model: 'local-rules' }, predictions: documents.map((_, i) => ({ prediction: record(i, 'pred') })) }],
  });
  evaluationId = evaluation.id;
  iterationId = evaluation.iterations[0]!.id;
}, 180_000);
afterAll(() => api.close());

describe('export of 10,000 documents x 50 fields', () => {
  it('streams the CSV with flat memory: the heap grows far less than the file is long', async () => {
    const response = await fetch(`${api.url}/v1/evals/${evaluationId}/iterations/${iterationId}/export?format=csv`, {
      headers: { 'api-key': 'key_org_a_0123456789' },
    });
    expect(response.status).toBe(200);
    const start = liveHeap();
    let peak = start;
    let bytes = 0;
    let lines = 0;
    let chunks = 0;
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      for (const byte of value) if (byte === 10) lines += 1;
      if (++chunks % 256 === 0) peak = Math.max(peak, liveHeap());
    }
    expect(lines).toBe(1 + DOCUMENTS * FIELDS);
    expect(bytes).toBeGreaterThan(100 * 1024 * 1024);
    // Holding the whole file (or its rows) at once would grow the heap by more than its length.
    expect(peak - start).toBeLessThan(bytes / 4);
  }, 180_000);
});
