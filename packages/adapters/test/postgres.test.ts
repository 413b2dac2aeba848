import type { Storage } from '@docevals/core';
import { runStorageConformance } from '@docevals/adapters/conformance';
import { postgresStorage } from '@docevals/adapters/postgres';
import { Pool } from 'pg';
import { afterAll, inject } from 'vitest';

const url = inject('databaseUrl');
/** Every schema this file creates starts with it; afterAll drops them. */
const filePrefix = `t_${process.pid}_${Date.now().toString(36)}_`;
let n = 0;
const freshSchema = () => `${filePrefix}${++n}`;

const admin = new Pool({ connectionString: url, max: 2 });
/** A host's pool, shared by every store of the host-pool conformance run. */
const hostPool = new Pool({ connectionString: url, max: 10 });
const schemaOf = new WeakMap<Storage, string>();

afterAll(async () => {
  const { rows } = await admin.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [filePrefix]);
  for (const { nspname } of rows) await admin.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await hostPool.end();
  await admin.end();
});

runStorageConformance({
  name: 'postgres (connectionString)',
  create: () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url, schema });
    schemaOf.set(storage, schema);
    return storage;
  },
  reopen: async (previous) => {
    await previous.close();
    const schema = schemaOf.get(previous)!;
    const storage = postgresStorage({ connectionString: url, schema });
    schemaOf.set(storage, schema);
    return storage;
  },
});

runStorageConformance({
  name: 'postgres (host pool)',
  create: () => {
    const schema = freshSchema();
    const storage = postgresStorage({ pool: hostPool, schema });
    schemaOf.set(storage, schema);
    return storage;
  },
  reopen: async (previous) => {
    await previous.close();
    const schema = schemaOf.get(previous)!;
    const storage = postgresStorage({ pool: hostPool, schema });
    schemaOf.set(storage, schema);
    return storage;
  },
});
