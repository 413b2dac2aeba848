import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Queryable } from './postgres-connection.js';

/** The size of the buffers a COPY's rows are written into (one CopyData message each). */
const CHUNK_BYTES = 1024 * 1024;

/** A value of a text column in COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyText(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A `JSON.stringify` text as a COPY text value: JSON has no raw tab, newline or carriage return (inside strings they
 * are escaped, outside there is no whitespace), so only its backslashes are doubled.
 */
export function copyJson(json: string): string {
  return json.includes('\\') ? json.replace(/\\/g, '\\\\') : json;
}

/**
 * COPY's text rows written straight into buffers of {@link CHUNK_BYTES}: no string of the whole batch is built
 * (a join or a `+=` of 60,000 rows flattened a rope and encoded it again: twice the CPU of `JSON.stringify`).
 */
export class CopyRows {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  #buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  #used = 0;

  /**
   * Appends one row (its columns in COPY text form, tab-separated, newline-ended). One string per row: writing its
   * seven pieces apart cost twice the CPU (420,000 `Buffer.write` calls for a build's 60,000 rows).
   */
  push(row: string): void {
    // At most 3 bytes per UTF-16 unit: a row that may not fit starts a new buffer, one larger than a buffer is its own.
    const most = row.length * 3;
    if (most > CHUNK_BYTES - this.#used) {
      this.#flush();
      if (most > CHUNK_BYTES) {
        const own = Buffer.from(row);
        this.chunks.push(own);
        this.bytes += own.length;
        return;
      }
    }
    this.#used += this.#buffer.write(row, this.#used);
  }

  /** The buffers to send, the last one cut to its rows. */
  done(): Buffer[] {
    this.#flush();
    return this.chunks;
  }

  #flush(): void {
    if (this.#used === 0) return;
    this.chunks.push(this.#buffer.subarray(0, this.#used));
    this.bytes += this.#used;
    this.#buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    this.#used = 0;
  }
}

/** Runs `COPY ... FROM STDIN` with the rows in `chunks` on the transaction's connection. */
export function copyIn(db: Queryable, sql: string, chunks: readonly Buffer[]): Promise<void> {
  // Inside `PostgresConnection.transaction` the Queryable is the pooled client itself (narrowed to one form of
  // `query`), and a COPY needs the client's own `query` taking a stream.
  const client = db as unknown as PoolClient;
  return new Promise<void>((resolve, reject) => {
    const stream = client.query(copyFrom(sql));
    stream.on('error', reject);
    stream.on('finish', () => resolve());
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
}
