import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', 'storage-kit/index': 'src/storage-kit/index.ts' },
  // ESM-only dependencies are bundled so that the CJS build works on Node 20 without require(esm).
  noExternal: [/^@noble\/hashes/, 'p-limit', 'nanoid', 'yocto-queue'],
});
