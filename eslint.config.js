// ESLint for the workspace: typescript-eslint's type-checked rules that catch bugs (promises left floating or
// passed where a callback's result is ignored, `any` leaking into typed code), no stylistic rule, and the
// package boundaries of docs/decisions.md checked by `no-restricted-imports`.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The architecture: the docevals packages that each package's sources (`src/`) may import, besides itself.
 * Adding a package is adding one line here. Its tests and benchmarks may also import what its package.json
 * declares (dependencies and devDependencies); an example may import what its own package.json declares.
 */
export const boundaries = {
  core: [],
  adapters: ['core'],
  openai: ['core'],
  rest: ['core'],
  trpc: ['core'],
  cli: ['core', 'adapters'],
  bullmq: ['core'],
  web: ['core', 'trpc'],
};

const packageJson = (dir) => JSON.parse(readFileSync(`${root}${dir}/package.json`, 'utf8'));
/** The docevals package names (without scope) that a package.json declares in `dependencies`/`devDependencies`. */
const declared = (dir) => {
  const pkg = packageJson(dir);
  return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    .filter((name) => name.startsWith('@docevals/'))
    .map((name) => name.slice('@docevals/'.length));
};
/** The apps (the standalone server) and the examples: each may import what its own package.json declares. */
const hosts = ['apps', 'examples'].flatMap((top) =>
  readdirSync(`${root}${top}`).filter((dir) => existsSync(`${root}${top}/${dir}/package.json`)).map((dir) => `${top}/${dir}`),
);
for (const name of Object.keys(boundaries)) {
  if (!existsSync(`${root}packages/${name}/package.json`)) throw new Error(`eslint.config.js: no packages/${name}`);
}
for (const dir of readdirSync(`${root}packages`)) {
  if (!(dir in boundaries)) throw new Error(`eslint.config.js: packages/${dir} needs a line in \`boundaries\``);
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One `no-restricted-imports` setting: the docevals packages in `allowed` (plus `self`) and nothing else. */
const restrictImports = (self, allowed, more = []) => {
  allowed = [...new Set(allowed)].filter((name) => name !== self);
  const names = [self, ...allowed].filter(Boolean).map(escape);
  return [
    'error',
    {
      patterns: [
        {
          regex: names.length ? `^@docevals/(?!(${names.join('|')})(/|$))` : '^@docevals/',
          message: `${self ? `@docevals/${self}` : 'This file'} may import only ${allowed.length ? allowed.map((n) => `@docevals/${n}`).join(', ') : 'no other docevals package'} (eslint.config.js \`boundaries\`, or the package.json of a test's package).`,
        },
        {
          // Relative paths stop at a package's edge: `../../core/src/x.js` or `../../../packages/core/...`. (self-contained: not a path from here)
          regex: '^(\\.\\./)+((packages|apps|examples)/|[^./][^/]*/src(/|$))',
          message: 'Import another package by its name (@docevals/...), not by a relative path into its folder.',
        },
        {
          regex: '^@docevals/(example-|server$)',
          message: 'Nothing imports an example or the server app.',
        },
        ...more,
      ],
    },
  ];
};

const ts = ['**/*.ts', '**/*.tsx'];
const within = (dir, subdirs) => subdirs.flatMap((sub) => [`${dir}/${sub}/**/*.ts`, `${dir}/${sub}/**/*.tsx`]);

const typeChecked = {
  // Non-null assertions that `noUncheckedIndexedAccess: false` makes redundant (`rows[i]!`) are a style, not a bug.
  '@typescript-eslint/no-unnecessary-type-assertion': 'off',
  // Adapters and fakes implement Promise-returning interfaces with `async` methods that need no `await`: an `async`
  // function turns a throw into a rejection, which is what the Storage and Extractor contracts expect.
  '@typescript-eslint/require-await': 'off',
  // `reject(signal.reason)` and `reject(error)` in a catch pass on what was thrown, whatever it is.
  '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
  // `const { id: _id, ...rest } = record` drops a field on purpose.
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
};

/** Tests, benchmarks and test support read JSON bodies (`any`) and write fakes: `any` there is the point. */
const looseAny = {
  '@typescript-eslint/no-explicit-any': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', '.tmp/**', 'coverage/**', 'test-support/packaging-app/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ts,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: root } },
    rules: typeChecked,
  },
  { files: ['**/test/**/*.ts', '**/bench/**/*.ts', '**/e2e/**/*.ts', 'test-support/**/*.ts'], rules: looseAny },
  // Sizes a maintainer can live with (issue 29): no source file over 400 lines, no function over 80 (blank lines and
  // comments aside). A factory that grows past it becomes a table of module-level functions (docs/architecture.md).
  {
    files: ['packages/*/src/**/*.ts', 'packages/*/src/**/*.tsx', 'apps/*/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  // Each `@ts-expect-error` line there is a call the compiler must refuse: its operands are unresolved on purpose.
  { files: ['examples/trpc-client/src/type-test.ts'], rules: looseAny },
  // Package sources: only the packages `boundaries` allows.
  ...Object.entries(boundaries).map(([name, allowed]) => ({
    files: within(`packages/${name}`, ['src']),
    rules: { 'no-restricted-imports': restrictImports(name, allowed) },
  })),
  // Inside core, the service is the top layer: extraction, metrics, schemas, ... never import it (no type cycle).
  {
    files: within('packages/core', ['src']),
    ignores: ['packages/core/src/service/**', 'packages/core/src/operations/**', 'packages/core/src/index.ts'],
    rules: {
      'no-restricted-imports': restrictImports('core', boundaries.core, [
        { regex: '^(\\.\\./)+service(/|$)', message: 'Only the service imports the service: move what is shared below it.' },
      ]),
    },
  },
  // Package tests and benchmarks: the allowed packages and what the package.json declares.
  ...Object.entries(boundaries).map(([name, allowed]) => ({
    files: within(`packages/${name}`, ['test', 'bench']),
    rules: {
      'no-restricted-imports': restrictImports(name, [...allowed, ...declared(`packages/${name}`)]),
    },
  })),
  // The apps and the examples: what their own package.json declares.
  ...hosts.map((dir) => ({
    files: [`${dir}/**/*.ts`],
    rules: { 'no-restricted-imports': restrictImports('', declared(dir)) },
  })),
  // The web app's components: the rules of hooks (and React Compiler's checks the plugin's recommended set holds).
  { files: ['packages/web/src/**/*.tsx', 'packages/web/src/**/*.ts'], extends: [reactHooks.configs.flat.recommended] },
  // Files outside the TypeScript project (this config, scripts): plain JavaScript rules only.
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
