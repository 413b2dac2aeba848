// The package boundaries of eslint.config.js, checked on in-memory files placed inside each package: a wrong import
// must make `pnpm lint` fail, an allowed one must not.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    // The fixtures are not in the TypeScript project: the type-checked rules are off for them, the rest of the
    // configuration (the boundaries) is the real one.
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });
});

/** The `no-restricted-imports` messages ESLint reports for `code` as if it were the file at `filePath`. */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('package boundaries (eslint.config.js)', () => {
  it('refuses core importing another docevals package', async () => {
    const errors = await boundaryErrors('packages/core/src/service/x.ts', "import { memoryStorage } from '@docevals/adapters/memory';\n");
    expect(errors).toEqual([expect.stringContaining('@docevals/core may import only no other docevals package')]);
    expect(await boundaryErrors('packages/core/src/x.ts', "export * from '@docevals/rest';\n")).toHaveLength(1);
  });

  it('refuses rest and trpc importing adapters, and lets them import core', async () => {
    expect(await boundaryErrors('packages/rest/src/x.ts', "import { memoryStorage } from '@docevals/adapters';\n")).toEqual([
      expect.stringContaining('@docevals/rest may import only @docevals/core'),
    ]);
    expect(await boundaryErrors('packages/trpc/src/x.ts', "import type { Storage } from '@docevals/adapters/redis';\n")).toHaveLength(1);
    expect(await boundaryErrors('packages/rest/src/x.ts', "import { createDocevals } from '@docevals/core';\n")).toEqual([]);
    expect(await boundaryErrors('packages/openai/src/x.ts', "import { openaiExtractor } from '@docevals/trpc';\n")).toHaveLength(1);
  });

  it('refuses a relative path into another package, benchmarks included', async () => {
    expect(await boundaryErrors('packages/adapters/bench/x.bench.ts', "import { updateRecord } from '../../core/src/x.js';\n")).toEqual([
      expect.stringContaining('not by a relative path'),
    ]);
    expect(await boundaryErrors('apps/server/test/x.test.ts', "import { x } from '../../../packages/openai/test/support/x.js';\n")).toHaveLength(1);
    expect(await boundaryErrors('packages/rest/src/x.ts', "export { y } from '../../trpc/src/index.js';\n")).toHaveLength(1);
    // A package's own files by relative path, and the workspace's shared test support, stay allowed.
    expect(await boundaryErrors('packages/core/test/service/x.test.ts', "import { createDocevals } from '../../src/index.js';\n")).toEqual([]);
    expect(await boundaryErrors('packages/core/src/service/x.ts', "import { assertJson } from '../json/assert-json.js';\n")).toEqual([]);
    expect(await boundaryErrors('packages/openai/test/x.test.ts', "import { FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';\n")).toEqual([]);
  });

  it('keeps the service the top layer of core', async () => {
    expect(await boundaryErrors('packages/core/src/extraction/x.ts', "import type { DocevalsOptions } from '../service/types.js';\n")).toEqual([
      expect.stringContaining('Only the service imports the service'),
    ]);
    expect(await boundaryErrors('packages/core/src/extraction/local-rules/x.ts', "import '../../service/x.js';\n")).toHaveLength(1);
    expect(await boundaryErrors('packages/core/src/service/x.ts', "import type { DocevalsOptions } from './types.js';\n")).toEqual([]);
    // The core's boundaries still hold there.
    expect(await boundaryErrors('packages/core/src/metrics/x.ts', "import '@docevals/adapters';\n")).toHaveLength(1);
  });

  it('lets tests import what their package.json declares, and nothing imports an example', async () => {
    // @docevals/rest declares @docevals/adapters in devDependencies: its tests may use the memory store, its sources not.
    expect(await boundaryErrors('packages/rest/test/x.test.ts', "import { memoryStorage } from '@docevals/adapters/memory';\n")).toEqual([]);
    expect(await boundaryErrors('packages/openai/test/x.test.ts', "import { createRestHandler } from '@docevals/rest';\n")).toHaveLength(1);
    expect(await boundaryErrors('examples/mounting/src/x.ts', "import { createRestHandler } from '@docevals/rest';\n")).toEqual([]);
    expect(await boundaryErrors('examples/in-process/src/x.ts', "import { createRestHandler } from '@docevals/rest';\n")).toHaveLength(1);
    expect(await boundaryErrors('examples/in-process/src/x.ts', "import '@docevals/server';\n")).not.toEqual([]);
    // The server app is inside the boundaries too: what its package.json declares, nothing else.
    expect(await boundaryErrors('apps/server/src/x.ts', "import { createRestHandler } from '@docevals/rest';\n")).toEqual([]);
    expect(await boundaryErrors('apps/server/src/x.ts', "import { x } from '@docevals/cli';\n")).toHaveLength(1);
    expect(await boundaryErrors('packages/core/test/x.test.ts', "import { x } from '@docevals/example-mounting';\n")).not.toEqual([]);
    // Core's tests use the core's own memory store: the adapters package stays out of them.
    expect(await boundaryErrors('packages/core/test/x.test.ts', "import { memoryStorage } from '@docevals/core/storage-kit';\n")).toEqual([]);
    expect(await boundaryErrors('packages/core/test/x.test.ts', "import { memoryStorage } from '@docevals/adapters/memory';\n")).toHaveLength(1);
  });
});
