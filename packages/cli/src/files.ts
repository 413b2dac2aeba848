import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { parseAnnotations, type AnnotationRow, type JsonObject } from '@docevals/core';
import { CliError, EXIT } from './errors.js';

const startsWith = (bytes: Uint8Array, signature: number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);

const TEXT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
};

/**
 * A file's MIME type from its first bytes: PDF, PNG, JPEG, GIF and WebP by their magic numbers; anything else that
 * decodes as UTF-8 is text (`text/plain`, or JSON/CSV/Markdown/HTML by extension); `null` for other binary files.
 */
export function sniffMimeType(bytes: Uint8Array, filename: string): string | null {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif'; // GIF8
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  const head = bytes.subarray(0, 64 * 1024);
  if (head.includes(0)) return null;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? trimPartial(head) : head);
  } catch {
    return null;
  }
  return TEXT_TYPES[extname(filename).toLowerCase()] ?? 'text/plain';
}

// A 64 KiB cut can split a multi-byte character: drop an incomplete one at the end before decoding.
function trimPartial(bytes: Uint8Array): Uint8Array {
  const end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const b = bytes[end - back];
    if ((b & 0xc0) === 0xc0) return bytes.subarray(0, end - back);
    if ((b & 0x80) === 0) break;
  }
  return bytes;
}

/** A file of the folder: its name relative to the folder (`/` separated, the name annotations match). */
export interface FolderFile {
  filename: string;
  path: string;
  size: number;
}

/**
 * Every regular file under `folder` (recursively, hidden files and folders skipped), sorted by name. `skip`: files
 * or folders (any form of path) left out, e.g. the schema, the annotations and a local store inside the folder.
 */
export async function listFolder(folder: string, skip: string[] = []): Promise<FolderFile[]> {
  const skipped = skip.map((p) => resolve(p));
  const isSkipped = (path: string) => skipped.some((p) => path === p || path.startsWith(p + sep));
  const info = await stat(folder).catch(() => null);
  if (!info?.isDirectory()) throw new CliError(`${folder} is not a folder`, EXIT.usage);
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: FolderFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const filename = relative(folder, path).split(sep).join('/');
    if (filename.split('/').some((part) => part.startsWith('.')) || isSkipped(resolve(path))) continue;
    files.push({ filename, path, size: (await stat(path)).size });
  }
  return files.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
}

/** Reads a JSON file the user named, with an error that says which file and what is wrong. */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read ${what} ${path}: ${error.code ?? error.message}`, EXIT.usage);
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} ${path} is not JSON: ${(error as Error).message}`, EXIT.usage);
  }
}

export interface AnnotationsFile {
  format: 'jsonl' | 'csv';
  text: string;
  rows: AnnotationRow[];
}

/** An annotations file (JSONL or CSV, by extension) parsed with the core's parser, typed by the schema. */
export async function readAnnotations(path: string, schema: JsonObject): Promise<AnnotationsFile> {
  const ext = extname(path).toLowerCase();
  const format = ext === '.csv' ? 'csv' : ext === '.jsonl' || ext === '.ndjson' ? 'jsonl' : null;
  if (!format) throw new CliError(`--annotations ${path}: expected a .jsonl or .csv file`, EXIT.usage);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read annotations ${path}: ${error.code ?? error.message}`, EXIT.usage);
  });
  return { format, text, rows: parseAnnotations(text, format, schema) };
}
