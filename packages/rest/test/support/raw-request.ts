import { request } from 'node:http';

export interface StreamedResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Bytes of the body the client managed to hand to the socket before the server answered. */
  bytesSent: number;
}

/**
 * POSTs a body of `totalBytes` bytes (spaces inside a JSON object: valid JSON whatever its size) in chunks, chunked
 * transfer encoding unless `contentLength` is given, and stops writing as soon as the server answers. The body is
 * generated as it goes: the client never holds more than one chunk.
 */
export function streamBody(
  url: string,
  options: {
    totalBytes: number;
    method?: string;
    /** null: no Content-Type header at all. @default 'application/json' */
    contentType?: string | null;
    headers?: Record<string, string>;
    contentLength?: number;
    chunkBytes?: number;
  },
): Promise<StreamedResult> {
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const chunk = Buffer.alloc(chunkBytes, 0x20);
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const headers: Record<string, string | number> = { ...options.headers };
    const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    if (options.contentLength !== undefined) headers['content-length'] = options.contentLength;
    const req = request(url, { method: options.method ?? 'POST', headers });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytesSent });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const write = () => {
      if (bytesSent === 0) {
        req.write('{');
        bytesSent += 1;
      }
      while (!answered && !req.destroyed && bytesSent < options.totalBytes - 1) {
        const size = Math.min(chunkBytes, options.totalBytes - 1 - bytesSent);
        bytesSent += size;
        if (!req.write(size === chunkBytes ? chunk : chunk.subarray(0, size))) {
          req.once('drain', write);
          return;
        }
      }
      if (!answered && !req.destroyed) req.end('}');
    };
    write();
  });
}
