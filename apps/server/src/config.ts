import { resolve } from 'node:path';
import { DEFAULT_BODY_TIMEOUT_MS } from '@docevals/core/internal';

/** What the standalone server reads from its environment. */
export interface StandaloneConfig {
  /** `PORT`. @default 3000 (0 picks a free port) */
  port: number;
  /** `HOST`. @default '127.0.0.1' */
  host: string;
  /**
   * `DATA_DIR`: the lowdb store and `api-keys.json`, as an absolute path. A relative one is taken from the folder
   * `pnpm start` was run in (`INIT_CWD`, which pnpm sets; else the working directory), not from the example's own.
   * @default '<where pnpm start ran>/.docevals-data'
   */
  dataDir: string;
  /** `REDIS_URL`: store in Redis instead of `DATA_DIR` (the key file stays in `DATA_DIR`). */
  redisUrl?: string;
  /** `DATABASE_URL`: store in PostgreSQL (schema `docevals`) instead of `DATA_DIR`; not together with `REDIS_URL`. */
  databaseUrl?: string;
  /** `REDIS_KEY_PREFIX`: the prefix of every key, for several docevals stores on one Redis. @default 'docevals:' */
  redisKeyPrefix?: string;
  /** `DOCEVALS_API_KEYS` (`key:organization,key2:organization2`); unset: a generated key kept in `DATA_DIR`. */
  apiKeys?: Record<string, string>;
  /** `OPENAI_API_KEY` / `OPENAI_BASE_URL`: serve every model other than `local-rules` through OpenAI. */
  openai?: { apiKey?: string; baseURL?: string };
  /**
   * The host's own provider keys, every organization's fallback: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
   * `GEMINI_API_KEY`, `XAI_API_KEY` (docs/secrets.md).
   */
  providerKeys?: Partial<Record<'OpenAI' | 'Anthropic' | 'Gemini' | 'xAI', string>>;
  /**
   * The master key of organization secrets: `DOCEVALS_SECRETS_KEY` (32 bytes, base64 or hex) or
   * `DOCEVALS_SECRETS_KEY_FILE`; neither: `DATA_DIR/secrets.key`, generated on first start.
   * `DOCEVALS_SECRETS_KEY_PREVIOUS`: the key being rotated out (still opens what it sealed).
   */
  secrets?: { key?: string; keyFile?: string; previousKey?: string };
  /** `DOCEVALS_CONCURRENCY`: extractor calls in flight per iteration. @default the core's (8) */
  concurrency?: number;
  /** `DOCEVALS_MAX_RUNNING_ITERATIONS`: iterations running at once in this server; more wait (FIFO). @default 4 */
  maxRunningIterations?: number;
  /** `DOCEVALS_LEASE_MS`: how long a server's hold on a running iteration lasts without renewal (and a worker's BullMQ lock). @default 6000 (a worker's lock: 5000) */
  leaseMs?: number;
  /**
   * `DOCEVALS_QUEUE=bullmq`: iterations are enqueued on BullMQ in `REDIS_URL` and run by worker processes
   * (`pnpm worker`, docs/workers.md); unset or `in-process`: run in this server.
   */
  queue?: 'bullmq';
  /**
   * `DOCEVALS_MODEL_LIMITS` (queue mode): fleet-wide limits per model, `model=in_flight[/per_second],*=in_flight`,
   * checked when the queue is opened.
   */
  modelLimits?: string;
  /** `WORKER_CONCURRENCY` (`pnpm worker`): documents a worker process runs at once, per model. @default 8 */
  workerConcurrency?: number;
  /** `WORKER_MAX_BATCH` (`pnpm worker`): most documents in one queue job (1: a job per document). @default 4 */
  workerMaxBatch?: number;
  /**
   * `DOCEVALS_METRICS_TOKEN`: `GET /metrics` on the server's port answers with `Authorization: Bearer <token>` (and
   * the metrics port asks for it too). Not a tenant's API key. Unset: `/metrics` only on `DOCEVALS_METRICS_PORT`.
   */
  metricsToken?: string;
  /**
   * `DOCEVALS_METRICS_PORT`: a second address serving `/metrics`, `/health/live` and `/health/ready` only (a
   * worker's only HTTP address), on `DOCEVALS_METRICS_HOST` (default 127.0.0.1). 0 picks a free port.
   */
  metricsPort?: number;
  metricsHost?: string;
  /**
   * `DOCEVALS_RATE_LIMIT` (requests per second per API key, `0`: off) and `DOCEVALS_RATE_BURST` (requests beyond it
   * per 10 s): a token bucket per key, in Redis when `REDIS_URL` is set (every server shares it). Null: off.
   * @default { perSecond: 100, burst: 200 }
   */
  rateLimit: { perSecond: number; burst: number } | null;
  /** `DOCEVALS_MAX_ITERATIONS_PER_ORG`: queued + running iterations per organization; one more is a 429. @default 20 */
  maxIterationsPerOrganization?: number;
  /** `DOCEVALS_BODY_TIMEOUT_MS`: how long a request body may take to arrive (REST and tRPC); slower is a 408. `0`: no limit. @default 60000 */
  bodyTimeoutMs: number;
}

export type Env = Record<string, string | undefined>;

/**
 * Reads and checks the environment; a wrong value stops the server at start with a message naming the variable.
 *
 * @example
 * readConfig({ PORT: '8080', DOCEVALS_API_KEYS: 'k1:acme,k2:globex' });
 * // { port: 8080, host: '127.0.0.1', dataDir: '/current/dir/.docevals-data', apiKeys: { k1: 'acme', k2: 'globex' } }
 */
export function readConfig(env: Env): StandaloneConfig {
  const config: StandaloneConfig = {
    port: integer(env, 'PORT', 3000, 0, 65_535),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    dataDir: resolve(nonEmpty(env.INIT_CWD) ?? process.cwd(), nonEmpty(env.DATA_DIR) ?? '.docevals-data'),
    rateLimit: null,
    bodyTimeoutMs: integer(env, 'DOCEVALS_BODY_TIMEOUT_MS', DEFAULT_BODY_TIMEOUT_MS, 0, 3_600_000),
  };
  const redisUrl = nonEmpty(env.REDIS_URL);
  if (redisUrl) config.redisUrl = redisUrl;
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl) config.databaseUrl = databaseUrl;
  if (redisUrl && databaseUrl) throw new Error('Set one of DATABASE_URL (PostgreSQL) and REDIS_URL, not both.');
  const redisKeyPrefix = nonEmpty(env.REDIS_KEY_PREFIX);
  if (redisKeyPrefix) config.redisKeyPrefix = redisKeyPrefix;
  const keys = nonEmpty(env.DOCEVALS_API_KEYS);
  if (keys) config.apiKeys = parseApiKeys(keys);
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  if (apiKey || baseURL) config.openai = { ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) };
  const providerKeys: NonNullable<StandaloneConfig['providerKeys']> = {};
  for (const [provider, variable] of [['OpenAI', 'OPENAI_API_KEY'], ['Anthropic', 'ANTHROPIC_API_KEY'], ['Gemini', 'GEMINI_API_KEY'], ['xAI', 'XAI_API_KEY']] as const) {
    const value = nonEmpty(env[variable]);
    if (value) providerKeys[provider] = value;
  }
  if (Object.keys(providerKeys).length > 0) config.providerKeys = providerKeys;
  const secretsKey = nonEmpty(env.DOCEVALS_SECRETS_KEY);
  const secretsKeyFile = nonEmpty(env.DOCEVALS_SECRETS_KEY_FILE);
  const previousKey = nonEmpty(env.DOCEVALS_SECRETS_KEY_PREVIOUS);
  if (secretsKey && secretsKeyFile) throw new Error('Set one of DOCEVALS_SECRETS_KEY and DOCEVALS_SECRETS_KEY_FILE, not both.');
  if (secretsKey || secretsKeyFile || previousKey) {
    config.secrets = {
      ...(secretsKey ? { key: secretsKey } : {}),
      ...(secretsKeyFile ? { keyFile: resolve(nonEmpty(env.INIT_CWD) ?? process.cwd(), secretsKeyFile) } : {}),
      ...(previousKey ? { previousKey } : {}),
    };
  }
  if (nonEmpty(env.DOCEVALS_CONCURRENCY)) config.concurrency = integer(env, 'DOCEVALS_CONCURRENCY', 8, 1, 1_000);
  if (nonEmpty(env.DOCEVALS_MAX_RUNNING_ITERATIONS)) {
    config.maxRunningIterations = integer(env, 'DOCEVALS_MAX_RUNNING_ITERATIONS', 4, 1, 1_000);
  }
  if (nonEmpty(env.DOCEVALS_LEASE_MS)) config.leaseMs = integer(env, 'DOCEVALS_LEASE_MS', 6_000, 300, 3_600_000);
  const queue = nonEmpty(env.DOCEVALS_QUEUE);
  if (queue && queue !== 'bullmq' && queue !== 'in-process') {
    throw new Error(`DOCEVALS_QUEUE must be "bullmq" or "in-process" (received "${queue}").`);
  }
  if (queue === 'bullmq') {
    if (!redisUrl) throw new Error('DOCEVALS_QUEUE=bullmq needs REDIS_URL: the queue and the store live in Redis.');
    config.queue = 'bullmq';
  }
  const modelLimits = nonEmpty(env.DOCEVALS_MODEL_LIMITS);
  if (modelLimits) config.modelLimits = modelLimits;
  if (nonEmpty(env.WORKER_CONCURRENCY)) config.workerConcurrency = integer(env, 'WORKER_CONCURRENCY', 8, 1, 1_000);
  if (nonEmpty(env.WORKER_MAX_BATCH)) config.workerMaxBatch = integer(env, 'WORKER_MAX_BATCH', 4, 1, 100);
  const metricsToken = nonEmpty(env.DOCEVALS_METRICS_TOKEN);
  if (metricsToken) {
    if (config.apiKeys && metricsToken in config.apiKeys) throw new Error('DOCEVALS_METRICS_TOKEN must not be one of the API keys.');
    config.metricsToken = metricsToken;
  }
  if (nonEmpty(env.DOCEVALS_METRICS_PORT)) {
    config.metricsPort = integer(env, 'DOCEVALS_METRICS_PORT', 0, 0, 65_535);
    config.metricsHost = nonEmpty(env.DOCEVALS_METRICS_HOST) ?? '127.0.0.1';
  }
  const perSecond = integer(env, 'DOCEVALS_RATE_LIMIT', 100, 0, 1_000_000);
  if (perSecond > 0) config.rateLimit = { perSecond, burst: integer(env, 'DOCEVALS_RATE_BURST', 200, 0, 1_000_000) };
  if (nonEmpty(env.DOCEVALS_MAX_ITERATIONS_PER_ORG)) {
    config.maxIterationsPerOrganization = integer(env, 'DOCEVALS_MAX_ITERATIONS_PER_ORG', 20, 1, 100_000);
  }
  return config;
}

/**
 * `key:organization,key2:organization2` -> `{ key: 'organization', key2: 'organization2' }`. A key may contain `:`;
 * the organization is what follows the last one.
 */
export function parseApiKeys(value: string): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const entry of value.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const at = entry.lastIndexOf(':');
    const key = entry.slice(0, at).trim();
    const organization = entry.slice(at + 1).trim();
    if (at <= 0 || key === '' || organization === '') {
      throw new Error('DOCEVALS_API_KEYS must look like "key:organization,key2:organization2".');
    }
    if (key in keys) throw new Error('DOCEVALS_API_KEYS lists the same key twice.');
    keys[key] = organization;
  }
  if (Object.keys(keys).length === 0) throw new Error('DOCEVALS_API_KEYS is set but lists no key.');
  return keys;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (received "${raw}").`);
  }
  return value;
}
