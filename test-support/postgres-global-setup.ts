import { spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, provideServer, startServerProcess } from './server-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres://...`: `DATABASE_URL` when set, else a throwaway PostgreSQL started for this run. */
    databaseUrl: string;
  }
}

/**
 * Vitest global setup (root config, every project): gives the tests a PostgreSQL database as
 * `inject('databaseUrl')`. Uses `DATABASE_URL` when set (tests write only into schemas of their own); otherwise
 * runs `initdb` into a temporary folder, starts `postgres` on a free loopback port (its unix socket in that folder),
 * creates a database, and removes it all in teardown. Without PostgreSQL's server binaries it fails the run:
 * Postgres tests must not skip silently.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  return provideServer(project, 'databaseUrl', process.env.DATABASE_URL, startPostgresServer);
}

export interface PostgresServerHandle {
  /** `postgres://postgres@127.0.0.1:<port>/docevals_test` */
  url: string;
  port: number;
  /** The folder holding the cluster (`data/`) and the unix socket. */
  dir: string;
  process: ChildProcess;
  /** Fast shutdown (SIGINT), or `kill -9` with `{ kill: true }`; removes the folder unless `keep` (or it was given). */
  stop(options?: { kill?: boolean; keep?: boolean }): Promise<void>;
}

/**
 * Starts a PostgreSQL server on a free loopback port and waits until it accepts connections. Also used by tests
 * that need a server of their own to kill and restart: pass the `dir` and `port` of the previous one to start it
 * again on the same cluster (no initdb then). `extraArgs` go last (`['-c', 'fsync=on']` overrides the default).
 *
 * Postgres refuses to run as root: under root, the folder is given to the `postgres` user (or `nobody`) and
 * initdb/postgres run as that user.
 */
export async function startPostgresServer(
  options: { port?: number; dir?: string; extraArgs?: string[] } = {},
): Promise<PostgresServerHandle> {
  const bin = serverBinDir();
  const owner = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'docevals-postgres-'));
  const data = join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};

  if (!existsSync(join(data, 'PG_VERSION'))) {
    const init = spawnSync(
      join(bin, 'initdb'),
      ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { encoding: 'utf8', ...as },
    );
    if (init.error || init.status !== 0) {
      if (ownDir) rmSync(dir, { recursive: true, force: true });
      throw new Error(`initdb failed: ${init.error?.message ?? ''}${init.stdout}${init.stderr}`);
    }
  }

  const port = options.port ?? (await freePort());
  // fsync off: a killed server keeps every commit (the OS has the WAL); only a machine crash would lose any.
  const args = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', dir, '-c', 'fsync=off'];
  const server = await startServerProcess({
    name: `postgres on port ${port}`,
    command: join(bin, 'postgres'),
    args: [...args, ...(options.extraArgs ?? [])],
    spawn: as,
    ready: () =>
      spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'], { encoding: 'utf8' }).status === 0,
    pollMs: 100,
    timeoutMs: 20_000,
    signal: 'SIGINT',
    graceMs: 10_000,
    cleanup: (keep) => {
      if (ownDir && !keep) rmSync(dir, { recursive: true, force: true });
    },
  });
  const stop = (how?: { kill?: boolean; keep?: boolean }) => server.stop(how);
  const create = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc',
    "SELECT 1 FROM pg_database WHERE datname = 'docevals_test'"], { encoding: 'utf8' });
  if (create.stdout.trim() !== '1') {
    const created = spawnSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'docevals_test'], {
      encoding: 'utf8',
    });
    if (created.status !== 0) {
      await stop();
      throw new Error(`createdb failed: ${created.stderr}`);
    }
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/docevals_test`, port, dir, process: server.process, stop };
}

/** The folder of `initdb` and `postgres`: `pg_config --bindir`, else the newest /usr/lib/postgresql/<n>/bin. */
function serverBinDir(): string {
  const candidates: string[] = [];
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (config.status === 0) candidates.push(config.stdout.trim());
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  const found = candidates.find((d) => existsSync(join(d, 'postgres')) && existsSync(join(d, 'initdb')));
  if (!found) {
    throw new Error(
      'PostgreSQL server binaries (initdb, postgres) were not found (needed by the Postgres adapter tests). Install them ' +
        '(apt-get install postgresql, or run scripts/setup.sh; brew install postgresql) or set DATABASE_URL to a database ' +
        'whose schemas may be created and dropped.',
    );
  }
  return found;
}

/** Under root: the user that runs postgres (`postgres` when it exists, else `nobody`). */
function unprivilegedUser(): { uid: number; gid: number } {
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('postgres refuses to run as root, and neither a `postgres` nor a `nobody` user exists to run it as.');
}
