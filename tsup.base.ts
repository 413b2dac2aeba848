import { defineConfig, type Options } from 'tsup';

/**
 * The build every package shares: ESM and CJS with type declarations and source maps, for Node 20, from
 * `src/index.ts` unless the package names its entries. A package's tsup.config.ts adds only what is its own.
 *
 * @example
 * // packages/<name>/tsup.config.ts
 * import { packageBuild } from '../../tsup.base.js'; // self-contained: not a path from here
 * export default packageBuild({ entry: { index: 'src/index.ts', 'node/index': 'src/node/index.ts' } });
 */
export function packageBuild(options: Options = {}) {
  return defineConfig({
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...options,
  });
}
