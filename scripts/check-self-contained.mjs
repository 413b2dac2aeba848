#!/usr/bin/env node
// A clone is the whole project: fails (exit 1) when a tracked source, test, benchmark, script or doc names a path
// outside the repository, or when a doc links a file of the repository that does not exist.
// - every relative path in a string or link ('../x', "./y", `../z`, ](../w)) must resolve inside the repository;
// - no absolute path into one machine's home or work folders, and no name of the "shared" folder beside the
//   repository (its vectors and spec subfolders) that the fixtures and the spec once came from;
// - every relative Markdown link (README.md, docs/, fixtures/) must name an existing file.
// Run by .ci/run; `node scripts/check-self-contained.mjs` on its own.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(root, file)));
// Text the project wrote: code, config, scripts, docs. Not the lockfile, the fixtures' data, or the changelog (history).
const checkedWithRun = tracked.filter(
  (file) =>
    (/\.(ts|mts|cts|js|mjs|cjs|json|md|sh|ya?ml)$/.test(file) || file === '.ci/run') &&
    file !== 'pnpm-lock.yaml' &&
    file !== 'CHANGELOG.md' &&
    !(file.startsWith('fixtures/') && file.endsWith('.json')) &&
    // The lint config's test writes imports as seen from virtual files inside each package, not from its own place.
    file !== 'test-support/lint-config.test.ts',
);

const problems = [];
const inside = (target) => {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..');
};

for (const file of checkedWithRun) {
  const text = readFileSync(join(root, file), 'utf8');
  const dir = dirname(join(root, file));
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    // A path written for another file's place (an example in a doc comment, a lint fixture's virtual path).
    if (line.includes('self-contained: not a path from here')) return;
    // Relative paths in quotes, backticks or Markdown link targets.
    for (const match of line.matchAll(/(?:['"`(])((?:\.\.?\/)+[^'"`)\s]*)/g)) {
      const target = resolve(dir, match[1]);
      if (!inside(target)) problems.push(`${where}: ${match[1]} leaves the repository`);
    }
    if (/(^|[\s'"`(=])\/(home|work|Users|root)\/[^\s'"`)]*/.test(line)) {
      problems.push(`${where}: an absolute path on one machine: ${line.trim()}`);
    }
    if (/(^|[^\w/.-])(\.\.\/)*shared\/(vectors|spec)\b/.test(line)) {
      problems.push(`${where}: names the shared folder outside the repository: ${line.trim()}`);
    }
  });
  if (file.endsWith('.md')) {
    let fenced = false;
    lines.forEach((line, index) => {
      if (line.startsWith('```')) fenced = !fenced;
      if (fenced) return;
      for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = match[1];
        if (/^[a-z][a-z+.-]*:/i.test(link) || link.startsWith('#')) continue;
        const target = resolve(dir, decodeURIComponent(link.split('#')[0]));
        if (!inside(target)) problems.push(`${file}:${index + 1}: link ${link} leaves the repository`);
        else if (!existsSync(target)) problems.push(`${file}:${index + 1}: link ${link}: no such file`);
      }
    });
  }
}

if (problems.length > 0) {
  console.error(`check-self-contained: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`check-self-contained: ${checkedWithRun.length} files name only paths inside the repository`);
