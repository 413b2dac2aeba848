// The standalone docevals server: `pnpm start` at the repository root or in apps/server (scripts/start.mjs
// bundles this file and the packages' sources with esbuild when they changed, then runs it), or
// `node --import tsx apps/server/src/server.ts` straight from the sources.
// Configuration by environment: see the README's "Standalone server settings" (PORT, HOST, DATA_DIR, REDIS_URL,
// DATABASE_URL, DOCEVALS_API_KEYS, OPENAI_API_KEY, OPENAI_BASE_URL, DOCEVALS_CONCURRENCY,
// DOCEVALS_MAX_RUNNING_ITERATIONS, DOCEVALS_LEASE_MS, REDIS_KEY_PREFIX), and for operations (docs/operations.md):
// LOG_LEVEL, LOG_FORMAT, DOCEVALS_METRICS_TOKEN, DOCEVALS_METRICS_PORT, DOCEVALS_METRICS_HOST,
// DOCEVALS_METRICS_ORGANIZATION_LABEL, OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables. Iterations left
// running by a crash are resumed at start (docs/spec/jobs.md).
// Ctrl-C (SIGINT) or SIGTERM: finish the requests in flight, close the storage, exit 0. A second Ctrl-C exits at once.
import { createStandaloneServer } from './app.js';

/**
 * Under `pnpm start` (or npm/yarn), Ctrl-C reaches both the package manager and this process, and the package
 * manager then relays the signal to us. If we exited before it handled its own copy, it would find no script left
 * to relay to and die of the signal, printing a failure. So, under a package manager, the exit waits (up to
 * RELAY_WAIT_MS) for that relayed copy; a signal within RELAY_WINDOW_MS of the first is that copy, not a second
 * Ctrl-C.
 */
const UNDER_PACKAGE_MANAGER = process.env.npm_lifecycle_event !== undefined;
const RELAY_WINDOW_MS = 2_000;
const RELAY_WAIT_MS = 2_000;

try {
  const app = await createStandaloneServer(process.env);

  let stop: { signal: NodeJS.Signals; at: number; relayed: boolean } | undefined;
  let onRelay = () => {};
  const relayed = new Promise<void>((resolve) => (onRelay = resolve));
  const exitAfterRelay = async () => {
    if (UNDER_PACKAGE_MANAGER && !stop?.relayed) {
      // A timer that keeps the process alive: with nothing left to do it would otherwise end on its own, and the
      // relayed signal, arriving while it ends, would kill it.
      await Promise.race([relayed, new Promise((resolve) => setTimeout(resolve, RELAY_WAIT_MS))]);
    }
    process.exit(0);
  };

  const shutdown = (signal: NodeJS.Signals) => {
    if (stop) {
      if (UNDER_PACKAGE_MANAGER && !stop.relayed && signal === stop.signal && Date.now() - stop.at < RELAY_WINDOW_MS) {
        stop.relayed = true;
        onRelay();
        return;
      }
      app.logger.warn(`${signal} again: exiting without waiting for the requests in flight`);
      process.exit(1);
    }
    stop = { signal, at: Date.now(), relayed: false };
    app.logger.info(`${signal}: finishing the requests in flight, then closing the storage`);
    // The spans not yet exported leave before the exit.
    app
      .close()
      .then(() => app.telemetry.shutdown())
      .then(exitAfterRelay, (error: unknown) => {
        app.logger.error({ err: error }, 'docevals: shutdown failed');
        process.exit(1);
      });
  };
  // Before listening: a Ctrl-C that comes right after the "listening" line must find the handlers in place.
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  await app.listen();
} catch (error) {
  console.error(`docevals: cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
