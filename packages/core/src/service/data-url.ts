import { Buffer } from 'node:buffer';
import type { ErrorIssue } from '../errors.js';
import type { StoredFile } from '../storage.js';

const DATA_URL = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i;
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a base64 data URL (`data:application/pdf;base64,JVBERi0...`). Returns an issue at `path` when the text is
 * not one; the media type defaults to `application/octet-stream`.
 */
export function parseDataUrl(url: string, path: string): StoredFile | ErrorIssue {
  const head = DATA_URL.exec(url.slice(0, 512));
  if (!head) {
    return { path, message: 'expected a base64 data URL such as "data:application/pdf;base64,JVBERi0..."' };
  }
  let body = url.slice(head[0].length);
  // Whitespace may wrap long base64 text; it carries no data.
  if (/\s/.test(body)) body = body.replace(/\s+/g, '');
  if (body.length % 4 !== 0 || !BASE64_BODY.test(body)) {
    return { path, message: 'the data URL payload is not valid base64' };
  }
  const mime = head[1]!.trim().toLowerCase() || 'application/octet-stream';
  const buffer = Buffer.from(body, 'base64');
  return { bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength), mime_type: mime };
}

/** Rebuilds the data URL a document came in as. */
export function toDataUrl(file: StoredFile): string {
  return `data:${file.mime_type};base64,${Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength).toString('base64')}`;
}

export function isIssue(value: StoredFile | ErrorIssue): value is ErrorIssue {
  return 'message' in value;
}
