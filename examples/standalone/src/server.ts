// The standalone docevals server: `pnpm start` at the repository root (no build: tsx runs the TypeScript sources of
// the packages, found through tsconfig.json's paths), or `pnpm start` in examples/standalone.
// Configuration by environment: see the README's "Standalone server settings" (PORT, HOST, DATA_DIR, REDIS_URL,
// DOCEVALS_API_KEYS, OPENAI_API_KEY, OPENAI_BASE_URL, DOCEVALS_CONCURRENCY).
// Ctrl-C (SIGINT) or SIGTERM: finish the requests in flight, close the storage, exit 0. A second signal exits at once.
import { createStandaloneServer } from './app.js';

try {
  const app = await createStandaloneServer(process.env);
  await app.listen();

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting for the requests in flight`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: finishing the requests in flight, then closing the storage`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('docevals: shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
} catch (error) {
  console.error(`docevals: cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
