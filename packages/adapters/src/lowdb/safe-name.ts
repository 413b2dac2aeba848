import { createHash } from 'node:crypto';

/**
 * A file or folder name for an organization id or a file_id. Names that are already safe everywhere (lowercase
 * letters, digits, `_` and `-`: the ids docevals makes, `file_0123456789abcdef`) are kept, so the folder stays
 * readable; anything else (`../x`, `CON`, upper case that a case-insensitive disk would fold, very long ids) becomes
 * `sha256.<hex>`, which no kept name can equal because kept names never contain a dot.
 */
export function safeName(id: string): string {
  if (/^[a-z0-9][a-z0-9_-]{0,99}$/.test(id) && !RESERVED.has(id)) return id;
  return `sha256.${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}

/** Device names Windows refuses as file names whatever the case (only lowercase can get this far). */
const RESERVED = new Set(['con', 'prn', 'aux', 'nul', ...Array.from({ length: 9 }, (_, i) => [`com${i + 1}`, `lpt${i + 1}`]).flat()]);
