import { defineConfig } from 'tsup';

// The binary only: `docevals` is used from a shell, not imported (dependencies stay external, installed with it).
export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
});
