import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DocumentRecord } from '@docevals/core';
import {
  convertEvaluation,
  convertIteration,
  isLegacyEvaluation,
  isLegacyIteration,
  type LegacyEvaluation,
  type LegacyIteration,
} from '../shared/legacy-records.js';
import { FORMAT, type Layout } from './layout.js';
import { flushSync, type DiskLog } from './record-disk.js';
import { PRIVATE_FILE, PRIVATE_FOLDER } from './file-modes.js';

/** The format of `docevals.json`, the single-file layout of the previous release. */
export const LEGACY_FORMAT = 'docevals-lowdb/1';

type Items<V> = Record<string, Record<string, V>>;
interface LegacyFile {
  format: string;
  evaluations?: Items<{ version: number; value: unknown }>;
  iterations?: Items<{ version: number; value: unknown }>;
  processors?: Items<{ version: number; value: unknown }>;
  files?: Items<{ references: number; mime_type: string; size: number }>;
}

/**
 * Converts `<dir>/docevals.json` (layout 1: every record in one file, documents inside evaluations, predictions
 * inside iterations) to the per-record layout, blocking, at the first open. Versions are kept; documents and
 * predictions start at version 1; predictions get status, metrics and totals (shared/legacy-records.ts). Every file
 * is written, then flushed once; `docevals.json` is then renamed `docevals.v1.json.migrated` (kept as a backup,
 * never read again) and the caller writes `store.json`. A crash midway leaves `docevals.json` in place, and the next
 * open converts it again from the start.
 */
export function migrateLegacyFile(layout: Layout, log: DiskLog): void {
  const legacy = JSON.parse(readFileSync(layout.legacy, 'utf8')) as LegacyFile;
  if (legacy.format !== LEGACY_FORMAT) {
    throw new Error(`docevals.json has format ${JSON.stringify(legacy.format)}, expected "${LEGACY_FORMAT}"`);
  }
  const gen = 1;
  const written: string[] = [];
  const write = (path: string, body: object) => {
    mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_FOLDER });
    writeFileSync(`${path}.migrate.tmp`, JSON.stringify({ gen, ...body }), { mode: PRIVATE_FILE });
    renameSync(`${path}.migrate.tmp`, path);
    written.push(path);
  };
  const entries = <V>(items: Items<V> | undefined): Array<[string, string, V]> =>
    Object.entries(items ?? {}).flatMap(([org, byId]) => Object.entries(byId).map(([id, v]) => [org, id, v] as [string, string, V]));

  const files = legacy.files ?? {};
  for (const [org, fileId, meta] of entries(files)) {
    write(layout.ref(org, fileId), { organization_id: org, file_id: fileId, references: meta.references, mime_type: meta.mime_type, size: meta.size });
  }
  const documentsOf = new Map<string, DocumentRecord[]>();
  for (const [org, id, entry] of entries(legacy.evaluations)) {
    if (!isLegacyEvaluation(entry.value)) {
      write(layout.record('evaluations', org, id), entry);
      continue;
    }
    const facts = (fileId: string) => (Object.hasOwn(files, org) && Object.hasOwn(files[org]!, fileId) ? files[org]![fileId] : undefined);
    const { evaluation, documents } = convertEvaluation(entry.value as LegacyEvaluation, facts);
    write(layout.record('evaluations', org, id), { version: entry.version, value: evaluation });
    documents.forEach((document, i) => write(layout.child('documents', org, id, document.id), { version: 1, seq: i + 1, value: document }));
    documentsOf.set(`${org}\u0000${id}`, documents);
  }
  for (const [org, id, entry] of entries(legacy.iterations)) {
    if (!isLegacyIteration(entry.value)) {
      write(layout.record('iterations', org, id), entry);
      continue;
    }
    const legacyIteration = entry.value as LegacyIteration;
    const documents = documentsOf.get(`${org}\u0000${legacyIteration.evaluation_id}`) ?? [];
    const { iteration, predictions } = convertIteration(legacyIteration, documents);
    write(layout.record('iterations', org, id), { version: entry.version, value: iteration });
    predictions.forEach((p, i) => write(layout.child('predictions', org, id, p.id), { version: 1, seq: i + 1, value: p }));
  }
  for (const [org, id, entry] of entries(legacy.processors)) write(layout.record('processors', org, id), entry);

  flushSync(layout.dir, written);
  renameSync(layout.legacy, `${layout.legacy.slice(0, -'.json'.length)}.v1.json.migrated`);
  log(`lowdb: converted docevals.json (${LEGACY_FORMAT}) to ${FORMAT}: ${written.length} files`, null);
}
