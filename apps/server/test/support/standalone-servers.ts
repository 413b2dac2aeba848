import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createStandaloneServer, type StandaloneServer } from '../../src/app.js';

/**
 * Standalone servers on a fresh data folder per test: `dataDir` is that folder, `start(env, options)` starts a
 * server on it (127.0.0.1, a free port) and returns it listening, `track(app)` closes one the test made itself.
 * Every server is closed and the folder removed after each test.
 */
export function standaloneServers(prefix: string) {
  let dataDir = '';
  let running: StandaloneServer[] = [];
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await Promise.all(running.map((app) => app.close(100)));
    running = [];
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    track<T extends StandaloneServer>(app: T): T {
      running.push(app);
      return app;
    },
    async start(env: Record<string, string>, options: Parameters<typeof createStandaloneServer>[1] = {}) {
      const app = this.track(await createStandaloneServer({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...env }, options));
      return { app, url: await app.listen() };
    },
  };
}
