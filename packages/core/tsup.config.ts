import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', internal: 'src/internal.ts', 'storage-kit/index': 'src/storage-kit/index.ts' },
  // ESM-only dependencies are bundled so that the CJS build works on Node 20 without require(esm).
  noExternal: [/^@noble\/hashes/, 'p-limit', 'nanoid', 'yocto-queue'],
  // The entries share their code in chunks in CommonJS too (esbuild splits ES modules only by default): a host that
  // requires `@docevals/core` and a package that requires `@docevals/core/internal` get one copy of the core.
  splitting: true,
});
