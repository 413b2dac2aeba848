import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  // ESM-only dependencies are bundled so that the CJS build works on Node 20 without require(esm).
  noExternal: [/^@noble\/hashes/, 'p-limit', 'nanoid', 'yocto-queue'],
});
