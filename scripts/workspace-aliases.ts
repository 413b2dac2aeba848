import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);

/**
 * The workspace's package aliases, declared once: tsconfig.json's `paths` (each `@docevals/...` name to its source
 * entry). vitest (every test runs against the sources, no build first) and the web app's vite build read them here;
 * `names` keeps only those (the web app bundles the core's sources, nothing else).
 *
 * @example
 * resolve: { alias: workspaceAliases(['@docevals/core']) }
 */
export function workspaceAliases(names?: readonly string[]): Array<{ find: RegExp; replacement: string }> {
  const { compilerOptions } = JSON.parse(readFileSync(new URL('tsconfig.json', root), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const chosen = Object.entries(compilerOptions.paths).filter(([name]) => !names || names.includes(name));
  const missing = names?.filter((name) => !(name in compilerOptions.paths)) ?? [];
  if (missing.length > 0) throw new Error(`tsconfig.json's paths declare no ${missing.join(', ')}`);
  return chosen.map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
    replacement: fileURLToPath(new URL(target!, root)),
  }));
}
