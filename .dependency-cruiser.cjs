// `pnpm lint:cycles`: no import circle anywhere in the project's TypeScript (issue 29), type imports included: a file
// never imports one that, directly or through others, imports it back. Only that rule: the package boundaries are
// eslint.config.js's `boundaries`.
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: move what both sides need below them (docs/architecture.md).',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.tmp)/' },
  },
};
