// The store core tests run on: the memory adapter, through the workspace's vitest alias. Core cannot declare
// @docevals/adapters (the build would order adapters first); eslint.config.js lets core's tests import it
// (`testOnly`), and docs/decisions.md says why.
export { memoryStorage } from '@docevals/adapters/memory';
