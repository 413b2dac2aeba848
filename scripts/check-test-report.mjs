#!/usr/bin/env node
// Reads vitest's JSON report (default .tmp/vitest.json, as .ci/run writes it) and fails (exit 1) when a test file
// collected no test: a file that cannot load (a fixture missing, an import broken) shows up as 0 tests, which a
// passing count elsewhere would hide. Prints how many tests each vector test file ran, the proof that the
// repository's own fixtures/vectors were read.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const report = JSON.parse(readFileSync(resolve(root, process.argv[2] ?? '.tmp/vitest.json'), 'utf8'));
const files = report.testResults.map((result) => ({
  file: relative(root, result.name),
  tests: result.assertionResults.length,
  passed: result.assertionResults.filter((test) => test.status === 'passed').length,
}));
const empty = files.filter((entry) => entry.tests === 0);
for (const entry of files.filter((e) => /vectors|align-prediction/.test(e.file))) {
  console.log(`vector tests: ${entry.file}: ${entry.passed} of ${entry.tests} passed`);
}
if (files.length === 0 || empty.length > 0) {
  console.error(`test files that collected no test: ${files.length === 0 ? 'all (none ran)' : empty.map((e) => e.file).join(', ')}`);
  process.exit(1);
}
console.log(`every one of ${files.length} test files collected its tests`);
