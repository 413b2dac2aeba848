// The store core tests run on: the memory adapter, by a relative path (core's package.json declares
// @docevals/adapters as a devDependency), not through the workspace's vitest alias.
export { memoryStorage } from '../../../adapters/src/memory/index.js';
