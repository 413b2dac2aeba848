// Lints the OpenAPI document the REST handler serves with Redocly's `recommended` ruleset; any problem (error or
// warning) fails. `pnpm lint:openapi` (and .ci/run). .redocly.lint-ignore.yaml lists the accepted exceptions, each
// with its reason. Offline: Redocly's telemetry, update check and notices are off,
// and the ruleset is the CLI's built-in one (no remote config).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiKeyAuthenticator, createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { createRestHandler } from '@docevals/rest';

const root = new URL('..', import.meta.url).pathname;
const handler = createRestHandler({
  docevals: createDocevals({ storage: memoryStorage() }),
  authenticate: apiKeyAuthenticator({ keys: { lint_key: 'org_lint' } }),
});
const response = await handler(new Request('http://127.0.0.1/v1/openapi.json', { headers: { 'api-key': 'lint_key' } }));
if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
mkdirSync(join(root, '.tmp'), { recursive: true });
const file = join(root, '.tmp', 'openapi.json');
writeFileSync(file, await response.text());

const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  DO_NOT_TRACK: '1',
};
const lint = (format: string) =>
  spawnSync('pnpm', ['exec', 'redocly', 'lint', '--extends=recommended', `--format=${format}`, file], { cwd: root, env, encoding: 'utf8' });

const json = lint('json');
const report = JSON.parse(json.stdout.slice(json.stdout.indexOf('{'))) as {
  totals: { errors: number; warnings: number; ignored: number };
};
const { errors, warnings, ignored } = report.totals;
if (errors + warnings > 0) {
  process.stdout.write(lint('stylish').stdout);
  console.error(`redocly lint (recommended): ${errors} errors, ${warnings} warnings in the served OpenAPI document`);
  process.exit(1);
}
console.log(
  `redocly lint (recommended): 0 problems in the served OpenAPI document (${file.slice(root.length)}); ` +
    `${ignored} ignored by .redocly.lint-ignore.yaml`,
);
