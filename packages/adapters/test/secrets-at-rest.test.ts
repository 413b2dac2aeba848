/**
 * Organization secrets at rest on each real storage (issue 27): a provider key and a custom endpoint's key stored
 * through the service are in no Redis value, PostgreSQL row or lowdb file in clear (nor base64'd); the raw storage is
 * read directly, not through the adapter. A service with another master key on the same store says so clearly.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { aesGcmCipher, createDocevals, generateMasterKey, parseMasterKey, type Storage } from '@docevals/core';
import { lowdbStorage } from '@docevals/adapters/lowdb';
import { redisStorage } from '@docevals/adapters/redis';
import { postgresStorage } from '@docevals/adapters/postgres';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deleteKeys, uniqueKeyPrefix } from './support/redis-test-keys.js';

const ORG = 'org_at_rest';
const PROVIDER_KEY = 'sk-ant-at-rest-7f3a9c1e5b2d4068';
const CUSTOM_KEY = 'sk-custom-at-rest-0b8e6d4c2a19';
const URL_PASSWORD = 'pw-at-rest-51c7e0';
/** Each clear value, and its base64: neither may be in the raw storage. */
const needles = [PROVIDER_KEY, CUSTOM_KEY, URL_PASSWORD].flatMap((s) => [s, Buffer.from(s).toString('base64')]);

const redisPrefix = uniqueKeyPrefix('secrets');
const postgresSchema = `t_secrets_${process.pid}_${Date.now().toString(36)}`;
const folders: string[] = [];
afterAll(async () => {
  const admin = new Redis(inject('redisUrl'));
  await deleteKeys(admin, redisPrefix);
  await admin.quit();
  const pg = new Pool({ connectionString: inject('databaseUrl'), max: 1 });
  await pg.query(`DROP SCHEMA IF EXISTS "${postgresSchema}" CASCADE`);
  await pg.end();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Every value of every key of the Redis server (not only this test's prefix), as text. */
async function redisDump(): Promise<string> {
  const client = new Redis(inject('redisUrl'));
  const out: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await client.type(key);
        const value =
          type === 'string' ? await client.get(key)
          : type === 'hash' ? Object.entries(await client.hgetall(key)).sort(([a], [b]) => (a < b ? -1 : 1))
          : type === 'list' ? await client.lrange(key, '0', '-1')
          : type === 'set' ? (await client.smembers(key)).sort()
          : type === 'zset' ? await client.zrange(key, '0', '-1', 'WITHSCORES')
          : type === 'stream' ? await client.xrange(key, '-', '+')
          : `(${type})`;
        out.push(`${key} ${JSON.stringify(value)}`);
      }
    } while (cursor !== '0');
  } finally {
    await client.quit();
  }
  return out.join('\n');
}

/** Every row of every table of the database (every schema but the system's), as text. */
async function postgresDump(): Promise<string> {
  const pg = new Pool({ connectionString: inject('databaseUrl'), max: 1 });
  const out: string[] = [];
  try {
    const tables = await pg.query<{ table_schema: string; table_name: string }>(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    for (const { table_schema, table_name } of tables.rows) {
      const rows = await pg.query<{ row: string }>(`SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`);
      for (const { row } of rows.rows) out.push(`${table_schema}.${table_name} ${row}`);
    }
  } finally {
    await pg.end();
  }
  return out.join('\n');
}

/** Every file of the lowdb folder, as text. */
function folderDump(dir: string): string {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.name} ${readFileSync(join(entry.parentPath, entry.name), 'latin1')}`)
    .join('\n');
}

/** A store, the dump of its whole server, and the lines of the dump that are this test's own (sorted). */
interface Store {
  open: () => Storage;
  dump: () => Promise<string>;
  own: (dump: string) => string[];
}
const ownLines = (marker: string) => (dump: string) => dump.split('\n').filter((line) => line.startsWith(marker)).sort();

const stores: Record<string, () => Store> = {
  redis: () => ({ open: () => redisStorage({ url: inject('redisUrl'), keyPrefix: redisPrefix }), dump: redisDump, own: ownLines(redisPrefix) }),
  postgres: () => ({
    open: () => postgresStorage({ connectionString: inject('databaseUrl'), schema: postgresSchema }),
    dump: postgresDump,
    own: ownLines(`${postgresSchema}.`),
  }),
  lowdb: () => {
    const dir = mkdtempSync(join(tmpdir(), 'docevals-secrets-at-rest-'));
    folders.push(dir);
    return { open: () => lowdbStorage({ dir }), dump: async () => folderDump(dir), own: (dump) => dump.split('\n').sort() };
  },
};

describe.each(Object.keys(stores))('organization secrets at rest on %s', (name) => {
  it('keeps every key out of the raw storage, and a wrong master key is a clear error, not garbage', async () => {
    const store = stores[name]!();
    const masterKey = generateMasterKey();
    const storage = store.open();
    const docevals = createDocevals({ storage, secrets: { cipher: await aesGcmCipher([parseMasterKey(masterKey)]) } });
    try {
      await docevals.secrets.check();
      await docevals.secrets.externalApiKeys.create(ORG, { provider: 'Anthropic', api_key: PROVIDER_KEY });
      await docevals.secrets.customEndpoint.set(ORG, { base_url: `http://user:${URL_PASSWORD}@127.0.0.1:9/v1`, api_key: CUSTOM_KEY, models: ['m1'] });
      expect((await docevals.secrets.externalApiKeys.get(ORG, { provider: 'Anthropic' })).is_configured).toBe(true);
      expect(await docevals.secrets.customEndpoint.get(ORG)).toMatchObject({ base_url: 'http://***:***@127.0.0.1:9/v1', has_api_key: true });
    } finally {
      await docevals.close();
    }

    const raw = await store.dump();
    // The records are there (sealed), so the grep read the place they live in.
    expect(store.own(raw).join('\n')).toMatch(/dsk1\.[0-9a-f]{12}\./);
    for (const needle of needles) expect(raw.includes(needle), `${needle} in the raw ${name} storage`).toBe(false);

    // Restarted with another master key: the check and every read that opens a secret name the key the store needs.
    const wrong = createDocevals({ storage: store.open(), secrets: { cipher: await aesGcmCipher([parseMasterKey(generateMasterKey())]) } });
    try {
      const message = /The stored secrets were encrypted with the master key [0-9a-f]{12}, which is not configured here/;
      await expect(wrong.secrets.check()).rejects.toMatchObject({ code: 'not_configured', message: expect.stringMatching(message) });
      await expect(wrong.secrets.customEndpoint.get(ORG)).rejects.toMatchObject({ code: 'not_configured', message: expect.stringMatching(message) });
    } finally {
      await wrong.close();
    }
    // Nothing of the store changed.
    expect(store.own(await store.dump())).toEqual(store.own(raw));
  });
});
