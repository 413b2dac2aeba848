// A docevals worker process (queue mode, docs/workers.md): `pnpm worker` at the repository root, or
// `node --import tsx apps/server/src/worker.ts`. It reads the same environment as the server: REDIS_URL (the
// queue and the store), REDIS_KEY_PREFIX, OPENAI_API_KEY / OPENAI_BASE_URL (the same models), DOCEVALS_MODEL_LIMITS,
// DOCEVALS_LEASE_MS (BullMQ's lock on a document job), WORKER_CONCURRENCY (documents at once, per model) and
// WORKER_MAX_BATCH (most documents in one queue job).
// SIGINT / SIGTERM: stop taking jobs, finish the documents in flight, exit 0.
import { readConfig } from './config.js';
import { configuredExtractors, modelLimits, queuePrefix } from './queue.js';
import { loadSecretsKey } from './secrets-key.js';
import { openStorage } from './storage.js';

try {
  const config = readConfig(process.env);
  if (!config.redisUrl) throw new Error('a worker needs REDIS_URL: the queue and the store the API servers use.');
  const { createDocevalsWorker } = await import('@docevals/bullmq');
  const limits = await modelLimits(config);
  const worker = await createDocevalsWorker({
    storage: await openStorage(config),
    extractors: await configuredExtractors(config),
    secrets: { cipher: (await loadSecretsKey(config)).cipher },
    connection: config.redisUrl,
    prefix: queuePrefix(config),
    concurrency: config.workerConcurrency ?? 8,
    ...(config.workerMaxBatch ? { maxBatch: config.workerMaxBatch } : {}),
    ...(config.leaseMs ? { lockMs: config.leaseMs } : {}),
    ...(config.concurrency ? { extraction: { concurrency: config.concurrency } } : {}),
    ...(limits ? { limits } : {}),
  });
  console.log(`docevals worker ready (pid ${process.pid}, ${config.workerConcurrency ?? 8} documents at once per model; models: ${worker.docevals.models().join(', ')})`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: finishing the documents in flight`);
    worker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('docevals worker: shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} catch (error) {
  console.error(`docevals worker: cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
