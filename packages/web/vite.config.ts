import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { workspaceAliases } from '../../scripts/workspace-aliases.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The web app: `index.html` + `src/main.tsx` built to `dist/app` (hashed names under `assets/`), served by
 * `createWebHandler`. `pnpm --filter @docevals/web dev` serves it with hot reload and forwards the API calls to a
 * running `pnpm start` (DOCEVALS_API, default http://127.0.0.1:3000).
 */
export default defineConfig({
  root: here('.'),
  // Relative asset URLs: the page's `<base href>` (set by createWebHandler to its basePath) says where they live.
  base: './',
  plugins: [react()],
  // The app uses a few of the core's pure functions (the metric's list alignment in the document view) and constants
  // (the providers a key can be stored for): built from the core's sources, so the app needs no build of the core
  // first (`pnpm start` on a fresh clone). The aliases are tsconfig.json's `paths`, declared once there.
  resolve: { alias: workspaceAliases(['@docevals/core', '@docevals/core/internal']) },
  build: { outDir: here('./dist/app'), emptyOutDir: true, reportCompressedSize: true, sourcemap: false },
  server: {
    proxy: Object.fromEntries(['/trpc', '/v1'].map((path) => [path, process.env.DOCEVALS_API ?? 'http://127.0.0.1:3000'])),
  },
});
