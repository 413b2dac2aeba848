import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: {
    index: 'src/index.ts',
    'memory/index': 'src/memory/index.ts',
    'lowdb/index': 'src/lowdb/index.ts',
    'redis/index': 'src/redis/index.ts',
    'postgres/index': 'src/postgres/index.ts',
    'conformance/index': 'src/conformance/index.ts',
  },
  external: ['lowdb', 'ioredis', 'pg', 'vitest', '@docevals/core'],
  noExternal: ['p-limit', 'yocto-queue'],
});
