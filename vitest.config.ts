import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { workspaceAliases } from './scripts/workspace-aliases.js';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Tests import the packages by name and run against their sources: no build step before `pnpm test`.
// The aliases are tsconfig.json's `paths` (declared once there): each name exactly, to its source entry.
const alias = workspaceAliases();

const project = (name: string, dir: string, extra: Record<string, unknown> = {}) => ({
  resolve: { alias },
  test: { name, root: src(dir), include: ['test/**/*.test.ts', 'src/**/*.test.ts'], ...extra },
});

export default defineConfig({
  test: {
    globalSetup: [src('./test-support/redis-global-setup.ts'), src('./test-support/postgres-global-setup.ts')],
    projects: [
      project('core', './packages/core'),
      project('adapters', './packages/adapters', { testTimeout: 30_000, hookTimeout: 30_000 }),
      project('openai', './packages/openai', { testTimeout: 30_000 }),
      project('rest', './packages/rest', { testTimeout: 30_000 }),
      project('trpc', './packages/trpc', { testTimeout: 30_000 }),
      project('web', './packages/web'),
      project('cli', './packages/cli', { testTimeout: 120_000, hookTimeout: 60_000 }),
      project('bullmq', './packages/bullmq', { testTimeout: 120_000, hookTimeout: 60_000 }),
      // The product: the standalone server (REST + tRPC + web app) and its worker.
      // One master key of organization secrets for every server these tests start on the shared Redis / PostgreSQL
      // (servers of one store must share it; each would generate its own otherwise: docs/secrets.md).
      project('server', './apps/server', { testTimeout: 60_000, env: { DOCEVALS_SECRETS_KEY: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=' } }),
      project('examples', './examples', { testTimeout: 60_000, include: ['*/test/**/*.test.ts'] }),
      // The workspace's own tooling: the lint configuration's package boundaries.
      project('tools', './test-support', { testTimeout: 60_000, include: ['*.test.ts'] }),
    ],
  },
});
