import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // ESM-only dependencies are bundled so that the CJS build works on Node 20 without require(esm).
  noExternal: [/^@noble\/hashes/, 'p-limit', 'nanoid', 'yocto-queue'],
});
