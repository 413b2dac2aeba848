import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { describeStorage } from '../src/storage.js';

describe('readConfig', () => {
  it('puts the default data folder where pnpm start ran, not in the example folder', () => {
    expect(readConfig({ INIT_CWD: '/srv/app' }).dataDir).toBe('/srv/app/.docevals-data');
    expect(readConfig({ INIT_CWD: '/srv/app', DATA_DIR: 'data' }).dataDir).toBe('/srv/app/data');
    expect(readConfig({ INIT_CWD: '/srv/app', DATA_DIR: '/var/lib/docevals' }).dataDir).toBe('/var/lib/docevals');
  });

  it('refuses a port that is not a port, naming the variable', () => {
    expect(() => readConfig({ PORT: '70000' })).toThrow(/PORT/);
  });

  it('reads keys with colons in them, the organization after the last one', () => {
    expect(readConfig({ DOCEVALS_API_KEYS: 'a:b:org1, k2:org2' }).apiKeys).toEqual({ 'a:b': 'org1', k2: 'org2' });
  });

  it('stores in PostgreSQL with DATABASE_URL, refuses it together with REDIS_URL, and never prints its password', () => {
    const config = readConfig({ DATABASE_URL: 'postgres://app:secret@db:5432/app', INIT_CWD: '/srv/app' });
    expect(config.databaseUrl).toBe('postgres://app:secret@db:5432/app');
    expect(describeStorage(config)).toBe('PostgreSQL at postgres://app:***@db:5432/app');
    expect(() => readConfig({ DATABASE_URL: 'postgres://db/app', REDIS_URL: 'redis://r:6379' })).toThrow(/DATABASE_URL.*REDIS_URL/);
  });

  it('reads the job settings, refusing values out of range with the variable named', () => {
    const config = readConfig({ DOCEVALS_MAX_RUNNING_ITERATIONS: '2', DOCEVALS_LEASE_MS: '5000', REDIS_KEY_PREFIX: 'app1:' });
    expect(config).toMatchObject({ maxRunningIterations: 2, leaseMs: 5000, redisKeyPrefix: 'app1:' });
    expect(() => readConfig({ DOCEVALS_MAX_RUNNING_ITERATIONS: '0' })).toThrow(/DOCEVALS_MAX_RUNNING_ITERATIONS/);
    expect(() => readConfig({ DOCEVALS_LEASE_MS: '10' })).toThrow(/DOCEVALS_LEASE_MS must be an integer from 300/);
  });

  it('reads the queue mode: DOCEVALS_QUEUE=bullmq needs REDIS_URL; limits kept for the runner; worker concurrency checked', () => {
    expect(readConfig({ REDIS_URL: 'redis://127.0.0.1:6379', DOCEVALS_QUEUE: 'bullmq', DOCEVALS_MODEL_LIMITS: '*=8', WORKER_CONCURRENCY: '16', WORKER_MAX_BATCH: '1' })).toMatchObject({
      queue: 'bullmq',
      modelLimits: '*=8',
      workerConcurrency: 16,
      workerMaxBatch: 1,
    });
    expect(readConfig({ DOCEVALS_QUEUE: 'in-process' }).queue).toBeUndefined();
    expect(() => readConfig({ DOCEVALS_QUEUE: 'bullmq' })).toThrow(/DOCEVALS_QUEUE=bullmq needs REDIS_URL/);
    expect(() => readConfig({ DOCEVALS_QUEUE: 'kafka' })).toThrow(/DOCEVALS_QUEUE must be "bullmq" or "in-process"/);
    expect(() => readConfig({ WORKER_CONCURRENCY: '0' })).toThrow(/WORKER_CONCURRENCY must be an integer from 1/);
    expect(() => readConfig({ WORKER_MAX_BATCH: '0' })).toThrow(/WORKER_MAX_BATCH must be an integer from 1/);
  });

  it('reads the rate limit (on by default, 0: off) and the per-organization cap on iterations', () => {
    expect(readConfig({}).rateLimit).toEqual({ perSecond: 100, burst: 200 });
    expect(readConfig({ DOCEVALS_RATE_LIMIT: '10', DOCEVALS_RATE_BURST: '0' }).rateLimit).toEqual({ perSecond: 10, burst: 0 });
    expect(readConfig({ DOCEVALS_RATE_LIMIT: '0' }).rateLimit).toBeNull();
    expect(() => readConfig({ DOCEVALS_RATE_LIMIT: 'fast' })).toThrow(/DOCEVALS_RATE_LIMIT must be an integer/);
    expect(readConfig({}).maxIterationsPerOrganization).toBeUndefined();
    expect(readConfig({ DOCEVALS_MAX_ITERATIONS_PER_ORG: '5' }).maxIterationsPerOrganization).toBe(5);
    expect(() => readConfig({ DOCEVALS_MAX_ITERATIONS_PER_ORG: '0' })).toThrow(/DOCEVALS_MAX_ITERATIONS_PER_ORG must be an integer from 1/);
  });
});
