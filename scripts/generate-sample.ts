// `pnpm sample:write [folder]`: writes the standalone server's sample evaluation (apps/server/src/sample/) to a folder,
// to look at the documents or load them elsewhere: each document's file, `ground-truth.jsonl` (one line per document:
// its file name and annotation), `schema.json`, and one `predictions-<n>.jsonl` per imported iteration.
// The server does not read this folder: it generates the same documents at each load.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sampleEvaluation, sampleFiles } from '../apps/server/src/sample/index.js';

const folder = resolve(process.argv[2] ?? '.tmp/sample');
mkdirSync(folder, { recursive: true });
const files = await sampleFiles();
for (const file of files) writeFileSync(join(folder, file.filename), file.bytes);
const lines = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
writeFileSync(join(folder, 'ground-truth.jsonl'), lines(files.map((file) => ({ filename: file.filename, annotation: file.spec.truth }))));
const { evaluation, labels = [] } = await sampleEvaluation();
writeFileSync(join(folder, 'schema.json'), JSON.stringify(evaluation.json_schema, null, 2) + '\n');
for (const [i, iteration] of (evaluation.iterations ?? []).entries()) {
  const predictions = iteration.predictions ?? [];
  writeFileSync(join(folder, `predictions-${i + 1}.jsonl`), lines(predictions.map((p, d) => ({ filename: files[d]!.filename, ...p, name: labels[i]?.name ?? null }))));
}
console.log(`${files.length} documents, their ground truth and ${evaluation.iterations?.length ?? 0} iterations' predictions written to ${folder}`);
