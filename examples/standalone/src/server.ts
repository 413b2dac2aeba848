// The standalone docevals server: `pnpm start` at the repository root (after `pnpm build`), or `pnpm start` here.
// Configuration by environment: see README in docs/rest.md (PORT, HOST, DATA_DIR, REDIS_URL, DOCEVALS_API_KEYS,
// OPENAI_API_KEY, OPENAI_BASE_URL, DOCEVALS_CONCURRENCY, DOCEVALS_MAX_RUNNING_ITERATIONS, DOCEVALS_LEASE_MS,
// REDIS_KEY_PREFIX). Iterations left running by a crash are resumed at start (docs/spec/jobs.md).
import { createStandaloneServer } from './app.js';

try {
  const app = await createStandaloneServer(process.env);
  await app.listen();

  const shutdown = (signal: NodeJS.Signals) => {
    console.log(`${signal}: finishing the requests in flight, then closing the storage`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('docevals: shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
} catch (error) {
  console.error(`docevals: cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
