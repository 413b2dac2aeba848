// A docevals worker process (queue mode, docs/workers.md): `pnpm worker` at the repository root, or
// `node --import tsx apps/server/src/worker.ts`. It reads the same environment as the server: REDIS_URL (the
// queue and the store), REDIS_KEY_PREFIX, OPENAI_API_KEY / OPENAI_BASE_URL (the same models), DOCEVALS_MODEL_LIMITS,
// DOCEVALS_LEASE_MS (BullMQ's lock on a document job), WORKER_CONCURRENCY (documents at once, per model) and
// WORKER_MAX_BATCH (most documents in one queue job); for operations (docs/operations.md) LOG_LEVEL, LOG_FORMAT,
// DOCEVALS_METRICS_PORT / DOCEVALS_METRICS_HOST (its /metrics and probes), DOCEVALS_METRICS_TOKEN and the OTEL_*
// variables (OTEL_EXPORTER_OTLP_ENDPOINT: its spans, children of the API servers' iterations).
// SIGINT / SIGTERM: stop taking jobs, finish the documents in flight, exit 0.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readConfig } from './config.js';
import { createLogger, loggerOptions } from './observability/logger.js';
import { checkReadiness, listenOperations } from './observability/operations-endpoints.js';
import { exportsTraces, startTelemetry } from './observability/telemetry.js';
import { configuredExtractors, modelLimits, queuePrefix } from './queue.js';
import { loadSecretsKey } from './secrets-key.js';
import { openStorage } from './storage.js';

/**
 * Log lines written in one tick go out in one write: a batch logs its documents' lines together after it ends, one
 * system call for them all instead of one each (a write costs tens of µs on a virtual machine). What is pending when
 * the process exits is written then.
 */
function tickWriter(): (line: string) => void {
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const out = pending;
    pending = '';
    process.stdout.write(out);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending === '') process.nextTick(flush);
    pending += line;
  };
}

try {
  const config = readConfig(process.env);
  if (!config.redisUrl) throw new Error('a worker needs REDIS_URL: the queue and the store the API servers use.');
  const logger = createLogger({ ...loggerOptions(process.env), write: tickWriter() });
  // A worker with neither a metrics address nor a trace exporter has nobody to read its spans' figures: no tracer is
  // installed, so each document's spans stay the OpenTelemetry API's no-ops (issue 31: ~9 % of a worker's CPU).
  const observed = config.metricsPort !== undefined || exportsTraces(process.env);
  const telemetry = observed ? await startTelemetry(process.env, { serviceName: 'docevals-worker' }) : undefined;
  const { createDocevalsWorker } = await import('@docevals/bullmq');
  const limits = await modelLimits(config);
  const storage = await openStorage(config);
  const worker = await createDocevalsWorker({
    storage,
    extractors: await configuredExtractors(config),
    secrets: { cipher: (await loadSecretsKey(config)).cipher },
    connection: config.redisUrl,
    prefix: queuePrefix(config),
    concurrency: config.workerConcurrency ?? 8,
    ...(config.workerMaxBatch ? { maxBatch: config.workerMaxBatch } : {}),
    ...(config.leaseMs ? { lockMs: config.leaseMs } : {}),
    ...(config.concurrency ? { extraction: { concurrency: config.concurrency } } : {}),
    ...(limits ? { limits } : {}),
    log: (line, fields) => logger.info(fields ?? {}, line),
  });
  let stopping = false;
  telemetry?.metrics.watchQueue(worker.docevals);
  let metricsServer: Server | undefined;
  if (telemetry && config.metricsPort !== undefined) {
    const readiness = () => checkReadiness({ storage, queue: worker.docevals, closing: () => stopping });
    const host = config.metricsHost ?? '127.0.0.1';
    metricsServer = await listenOperations({ metrics: telemetry.metrics, readiness, port: config.metricsPort, host, ...(config.metricsToken ? { token: config.metricsToken } : {}) });
    logger.info(`metrics and probes: http://${host}:${(metricsServer.address() as AddressInfo).port}/metrics, /health/live, /health/ready`);
  }
  logger.info(`docevals worker ready (pid ${process.pid}, ${config.workerConcurrency ?? 8} documents at once per model; models: ${worker.docevals.models().join(', ')})`);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info(`${signal}: finishing the documents in flight`);
    worker
      .close()
      .then(() => new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())))
      .then(() => telemetry?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'docevals worker: shutdown failed');
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
