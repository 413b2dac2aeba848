import { randomUUID } from 'node:crypto';
import type { FileStore, StoredFile } from '@docevals/core';
import { execPipeline } from './read-records.js';
import type { KeyLayout } from './key-layout.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * Files as one hash each (`bytes`, `mime_type`, `refs`, `at`), apart from the records: writing an annotation never
 * rewrites a PDF. Retain and release are Lua scripts, so two servers counting references to one file agree; a
 * batch is one script (one round trip, all or nothing), remembered for an hour under its token so that a resent
 * batch counts once.
 */
export function redisFileStore(connection: RedisConnection, keys: KeyLayout): FileStore {
  return {
    retain(organizationId, fileId, content) {
      return connection.run('files.retain', async (client) => {
        const key = keys.file(organizationId, fileId);
        const now = String(Date.now());
        // Sent as a Buffer view of the caller's bytes: binary-safe, and not copied into a string.
        const added = content
          ? await client.docevalsRetain(key, '1', toBuffer(content.bytes), content.mime_type, randomUUID(), now)
          : await client.docevalsRetain(key, '0', '', '', randomUUID(), now);
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
        return fileOf(bytes, mimeType);
      });
    },

    getMany(organizationId, fileIds) {
      return connection.run('files.getMany', async (client) => {
        if (fileIds.length === 0) return [];
        // A pipeline of HMGETs, written to the socket at once: one round trip for the batch.
        const pipeline = client.pipeline();
        for (const fileId of fileIds) pipeline.hmgetBuffer(keys.file(organizationId, fileId), 'bytes', 'mime_type');
        const replies = await execPipeline<Array<Buffer | null>>(pipeline);
        return replies.map(([bytes, mimeType]) => (bytes == null || mimeType == null ? null : fileOf(bytes, mimeType)));
      });
    },

    retainMany(organizationId, entries) {
      return connection.run('files.retainMany', async (client) => {
        if (entries.length === 0) return [];
        const token = randomUUID();
        const fileKeys = entries.map((e) => keys.file(organizationId, e.fileId));
        const args: Array<string | Buffer> = [token, String(Date.now())];
        for (const entry of entries) {
          if (entry.content) args.push('1', toBuffer(entry.content.bytes), entry.content.mime_type);
          else args.push('0', '', '');
        }
        const answer = String(await client.docevalsRetainMany(1 + fileKeys.length, [keys.batch(organizationId, token), ...fileKeys, ...args]));
        return Array.from(answer, (c) => c === '1');
      });
    },

    releaseMany(organizationId, fileIds) {
      return connection.run('files.releaseMany', async (client) => {
        if (fileIds.length === 0) return;
        const token = randomUUID();
        const fileKeys = fileIds.map((id) => keys.file(organizationId, id));
        await client.docevalsReleaseMany(1 + fileKeys.length, [keys.batch(organizationId, token), ...fileKeys]);
      });
    },
  };
}

/**
 * A stored file from its HMGET reply, copied into a plain Uint8Array, as the contract types it: the reply may be a
 * slice of a larger socket chunk that a view would keep alive.
 */
function fileOf(bytes: Buffer, mimeType: Buffer): StoredFile {
  return { bytes: new Uint8Array(bytes), mime_type: mimeType.toString('utf8') };
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
