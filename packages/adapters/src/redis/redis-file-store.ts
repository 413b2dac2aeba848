import { randomUUID } from 'node:crypto';
import type { FileStore } from '@docevals/core';
import type { KeyLayout } from './key-layout.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * Files as one hash each (`bytes`, `mime_type`, `refs`), apart from the records: writing an annotation never
 * rewrites a PDF. Retain and release are Lua scripts, so two servers counting references to one file agree.
 */
export function redisFileStore(connection: RedisConnection, keys: KeyLayout): FileStore {
  return {
    retain(organizationId, fileId, content) {
      return connection.run('files.retain', async (client) => {
        const key = keys.file(organizationId, fileId);
        // Sent as a Buffer view of the caller's bytes: binary-safe, and not copied into a string.
        const added = content
          ? await client.docevalsRetain(key, '1', toBuffer(content.bytes), content.mime_type, randomUUID())
          : await client.docevalsRetain(key, '0', '', '', randomUUID());
        return added === 1;
      });
    },

    release(organizationId, fileId) {
      return connection.run('files.release', async (client) => {
        await client.docevalsRelease(keys.file(organizationId, fileId), randomUUID());
      });
    },

    get(organizationId, fileId) {
      return connection.run('files.get', async (client) => {
        const [bytes, mimeType] = await client.hmgetBuffer(keys.file(organizationId, fileId), 'bytes', 'mime_type');
        if (bytes === null || mimeType === null) return null;
        // Copied into a plain Uint8Array, as the contract types it: the reply may be a slice of a larger socket chunk
        // that a view would keep alive.
        return { bytes: new Uint8Array(bytes), mime_type: mimeType.toString('utf8') };
      });
    },
  };
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
