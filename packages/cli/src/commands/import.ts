import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { computeFileId, type JsonObject } from '@docevals/core';
import cliProgress from 'cli-progress';
import pLimit from 'p-limit';
import type { DocevalsClient, EvaluationInfo } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { listFolder, readAnnotations, readJsonFile, sniffMimeType } from '../files.js';
import { pc, type Output } from '../output.js';

type AnnotationRows = Awaited<ReturnType<typeof readAnnotations>>['rows'];

export interface ImportOptions {
  schema?: string;
  annotations: string;
  name: string;
  model?: string;
  concurrency: number;
}

export interface ImportReport {
  evaluation: { id: string; name: string; created: boolean };
  created: Array<{ filename: string; id: string; mime_type: string }>;
  skipped: Array<{ filename: string; id: string; reason: string }>;
  refused: Array<{ filename: string | null; row?: number; reason: string }>;
}

/** The evaluation of that name: exactly one, or none. */
export async function findByName(client: DocevalsClient, name: string): Promise<EvaluationInfo | null> {
  const matches = (await client.listEvaluations({ name })).filter((e) => e.name === name);
  if (matches.length > 1) {
    throw new CliError(`${matches.length} evaluations are named "${name}" (${matches.map((e) => e.id).join(', ')}): use an id`, EXIT.usage);
  }
  return matches[0] ?? null;
}

/**
 * `docevals import <folder>`: one evaluation from a folder. Files are identified locally (computeFileId) so that
 * a re-import into the evaluation of the same name sends only the files it does not have yet.
 */
export async function importFolder(client: DocevalsClient, folder: string, options: ImportOptions, out: Output): Promise<ImportReport> {
  let evaluation = await findByName(client, options.name);
  const schemaPath = options.schema ? resolve(options.schema) : undefined;
  const schema = evaluation ? evaluation.json_schema : await readSchema(schemaPath, options.name);
  const annotationsPath = resolve(options.annotations);
  const annotations = await readAnnotations(annotationsPath, schema);
  const files = await listFolder(folder, [annotationsPath, ...(schemaPath ? [schemaPath] : []), ...(client.dataDir ? [client.dataDir] : [])]);

  const report: ImportReport = { evaluation: { id: '', name: options.name, created: false }, created: [], skipped: [], refused: [] };
  const { byName, byId, rowOf } = indexAnnotations(annotations.rows, report);

  if (!evaluation) {
    evaluation = await client.createEvaluation({
      name: options.name,
      json_schema: schema,
      ...(options.model ? { default_inference_settings: { model: options.model } } : {}),
    });
    report.evaluation.created = true;
  }
  report.evaluation.id = evaluation.id;
  const existing = new Set((await client.listDocuments(evaluation.id)).map((d) => d.id));
  const seen = new Map<string, string>();
  const matched = new Set<string>();

  const bar = process.stderr.isTTY && !out.json
    ? new cliProgress.SingleBar(
        { format: `importing ${pc.cyan('{bar}')} {value}/{total} files | {created} new, {skipped} skipped, {refused} refused | ETA {eta_formatted}`, hideCursor: true, stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const counts = () => ({ created: report.created.length, skipped: report.skipped.length, refused: report.refused.length });
  bar?.start(files.length, 0, counts());
  const limit = pLimit(Math.max(1, options.concurrency));
  const evaluationId = evaluation.id;
  try {
    await Promise.all(
      files.map((file) =>
        limit(async () => {
          try {
            const bytes = new Uint8Array(await readFile(file.path));
            const id = computeFileId(bytes);
            const annotation = byName.get(file.filename) ?? byId.get(id);
            if (annotation) matched.add(byName.has(file.filename) ? file.filename : id);
            const mimeType = sniffMimeType(bytes, file.filename);
            if (!mimeType) return void report.refused.push({ filename: file.filename, reason: 'not a PDF, PNG, JPEG, GIF, WebP or UTF-8 text file' });
            if (existing.has(id)) return void report.skipped.push({ filename: file.filename, id, reason: 'already in the evaluation' });
            const twin = seen.get(id);
            if (twin) return void report.skipped.push({ filename: file.filename, id, reason: `same content as ${twin}` });
            seen.set(id, file.filename);
            if (!annotation) return void report.refused.push({ filename: file.filename, reason: `no annotation row names it in ${options.annotations}` });
            const url = `data:${mimeType};base64,${Buffer.from(bytes).toString('base64')}`;
            try {
              const added = await client.addDocument(evaluationId, { mime_data: { filename: file.filename, url }, annotation });
              report.created.push({ filename: file.filename, id: added.id, mime_type: mimeType });
            } catch (error) {
              if (error instanceof CliError && error.exitCode === EXIT.refused) {
                report.refused.push({ filename: file.filename, reason: error.message });
              } else throw error;
            }
          } finally {
            bar?.increment(1, counts());
          }
        }),
      ),
    );
  } finally {
    bar?.stop();
  }
  for (const [key, row] of rowOf) {
    if (!matched.has(key)) report.refused.push({ filename: key, row, reason: 'the annotation names no file of the folder' });
  }
  const byFilename = (a: { filename: string | null }, b: { filename: string | null }) => ((a.filename ?? '') < (b.filename ?? '') ? -1 : 1);
  report.created.sort(byFilename);
  report.skipped.sort(byFilename);
  report.refused.sort(byFilename);
  return report;
}

/** The schema of a new evaluation, read from `--schema` (which a new evaluation needs). */
async function readSchema(schemaPath: string | undefined, name: string): Promise<JsonObject> {
  if (!schemaPath) throw new CliError(`no evaluation is named "${name}": pass --schema schema.json to create it`, EXIT.usage);
  const read = await readJsonFile(schemaPath, 'schema');
  if (read === null || typeof read !== 'object' || Array.isArray(read)) throw new CliError(`schema ${schemaPath} must be a JSON object`, EXIT.usage);
  return read as JsonObject;
}

/**
 * Annotation rows by filename (or document id), with the row each came from; a row that cannot be read, or a second
 * row for the same file, is refused (in `report`) with the reason.
 */
function indexAnnotations(rows: AnnotationRows, report: ImportReport) {
  const byName = new Map<string, JsonObject>();
  const byId = new Map<string, JsonObject>();
  const rowOf = new Map<string, number>();
  for (const row of rows) {
    if (row.issues.length > 0 || !row.annotation) {
      report.refused.push({ filename: row.filename ?? null, row: row.row, reason: row.issues.map((i) => `${i.path}: ${i.message}`).join('; ') });
      continue;
    }
    const key = row.filename ?? row.document_id!;
    const target = row.filename ? byName : byId;
    if (target.has(key)) {
      report.refused.push({ filename: row.filename ?? null, row: row.row, reason: `a second annotation row for ${key} (row ${rowOf.get(key)} is used)` });
      continue;
    }
    target.set(key, row.annotation);
    rowOf.set(key, row.row);
  }
  return { byName, byId, rowOf };
}

export function formatImportReport(report: ImportReport): string {
  const lines = [
    `${report.evaluation.created ? 'created' : 'updated'} evaluation ${pc.bold(report.evaluation.name)} (${report.evaluation.id})`,
    `  ${pc.green(`${report.created.length} created`)}, ${report.skipped.length} skipped, ${report.refused.length ? pc.red(`${report.refused.length} refused`) : '0 refused'}`,
  ];
  const reasons = new Map<string, number>();
  for (const s of report.skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
  for (const [reason, n] of reasons) lines.push(pc.dim(`  skipped ${n}: ${reason}`));
  for (const r of report.refused) lines.push(`  ${pc.red('refused')} ${r.filename ?? `row ${r.row}`}${r.row ? ` (row ${r.row})` : ''}: ${r.reason}`);
  return lines.join('\n');
}
