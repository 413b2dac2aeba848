// Compares the OpenAPI document the REST handler serves with the committed snapshot (docs/openapi.snapshot.json,
// canonical JSON: keys sorted, two-space indent) and prints every difference by its JSON path, saying whether it is
// only a description. `pnpm openapi:diff` exits 1 on any difference; `pnpm openapi:diff --update` rewrites the
// snapshot (commit it with the change that moved the document, after reading the differences).
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { createOpenApiDocument } from '@docevals/rest';

const snapshotFile = new URL('../docs/openapi.snapshot.json', import.meta.url).pathname;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Object keys sorted at every level (arrays keep their order: it means something in OpenAPI). */
function canonical(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key]!)]));
  }
  return value;
}

interface Difference {
  path: string;
  before: Json | undefined;
  after: Json | undefined;
}

/** Every path where the two documents differ: a leaf that changed, a key that came or went. */
function differences(before: Json | undefined, after: Json | undefined, path: string, out: Difference[]): Difference[] {
  if (isDeepStrictEqual(before, after)) return out;
  const isObject = (v: Json | undefined): v is { [key: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) differences(before[key], after[key], `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
  } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => differences(item, after[i], `${path}/${i}`, out));
  } else {
    out.push({ path: path || '/', before, after });
  }
  return out;
}

// The document the handler serves at /v1/openapi.json (a test checks the served one is this one).
const current = canonical(createOpenApiDocument() as Json);

if (process.argv.includes('--update')) {
  writeFileSync(snapshotFile, `${JSON.stringify(current, null, 2)}\n`);
  console.log(`openapi:diff: ${snapshotFile} rewritten`);
  process.exit(0);
}

const snapshot = canonical(JSON.parse(readFileSync(snapshotFile, 'utf8')) as Json);
const found = differences(snapshot, current, '', []);
const show = (value: Json | undefined) => (value === undefined ? '(absent)' : JSON.stringify(value).slice(0, 400));
for (const { path, before, after } of found) {
  const kind = /\/description$/.test(path) ? 'description' : 'STRUCTURE';
  console.log(`${kind} ${path}\n  - ${show(before)}\n  + ${show(after)}`);
}
const structural = found.filter(({ path }) => !/\/description$/.test(path)).length;
console.log(`openapi:diff: ${found.length} differences, ${found.length - structural} in descriptions, ${structural} elsewhere`);
process.exit(found.length === 0 ? 0 : 1);
