/**
 * The curl walk-through of README.md (and its copy in docs/rest.md), run as a reader runs it: the shell blocks of
 * the section, in order, in one bash, against a started standalone server, with `KEY` and `BASE` set the way the
 * text tells the reader to (the key the server printed, the address it printed). A README edit that breaks a
 * command, or a server change that breaks the README, fails here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiClient as client } from './support/api-client.js';
import { createStandaloneServer, type StandaloneServer } from '../src/app.js';

const ROOT = new URL('../../../', import.meta.url);
const execFileAsync = promisify(execFile);

/** The fenced `sh` blocks of the section whose heading starts with `heading`, up to the next heading of its level. */
export function shellBlocks(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  // A heading is a `#` line outside fenced code (a shell comment inside a block is not one).
  let fenced = false;
  const isHeading = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && /^#{1,6} /.test(line);
  });
  const start = lines.findIndex((line, i) => isHeading[i] && line.replace(/^#+ /, '').startsWith(heading));
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, i) => i > start && isHeading[i] && /^#+/.exec(line)![0].length <= level);
  const section = lines.slice(start, end < 0 ? undefined : end).join('\n');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** A `# ...` result line of the walk-through as a pattern: blanks dropped, `...` for any text. */
function expectedPattern(comment: string): RegExp {
  const compact = comment.replace(/\s+/g, '');
  const escaped = compact.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*?')}$`);
}

/** The JSON values jq printed, one after another. */
function jsonValues(output: string): unknown[] {
  const values: unknown[] = [];
  let rest = output.trim();
  while (rest !== '') {
    let parsed = false;
    // The shortest prefix that parses is one value (jq prints each value whole, pretty or not).
    for (let end = 1; end <= rest.length; end++) {
      if (!['}', ']', '\n'].includes(rest[end - 1]!) && end !== rest.length) continue;
      try {
        values.push(JSON.parse(rest.slice(0, end)));
        rest = rest.slice(end).trim();
        parsed = true;
        break;
      } catch {
        // not yet a whole value
      }
    }
    if (!parsed) throw new Error(`not JSON: ${rest.slice(0, 200)}`);
  }
  return values;
}

let dataDir: string;
let app: StandaloneServer | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'docevals-walkthrough-'));
});
afterEach(async () => {
  await app?.close(100);
  app = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['README.md', 'Walk-through'],
  ['docs/rest.md', 'Walk-through'],
])('the curl walk-through of %s', (file, heading) => {
  it('runs as written against a started server, printing what the text says it prints', async () => {
    const blocks = shellBlocks(await readFile(new URL(file, ROOT), 'utf8'), heading);
    expect(blocks.length).toBeGreaterThanOrEqual(8); // the settings, then the seven endpoints

    // Start the server as the reader does (first start, generated key), and read the key and address it prints.
    const lines: string[] = [];
    app = await createStandaloneServer({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir }, { log: (l) => lines.push(l) });
    await app.listen();
    const base = /^docevals listening on (http:\/\/\S+) /.exec(lines[0]!)?.[1];
    const key = lines[lines.findIndex((l) => l.startsWith('generated API key')) + 1]?.trim();
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^dk_/);

    // "Set KEY to the key the server printed, and BASE if you changed HOST or PORT."
    const settings = blocks[0]!;
    expect(settings).toMatch(/^KEY=dk_\.\.\. /m);
    expect(settings).toMatch(/^BASE=http:\/\/127\.0\.0\.1:3000$/m);
    const script = [
      settings.replace(/^KEY=dk_\.\.\..*$/m, `KEY=${key}`).replace(/^BASE=.*$/m, `BASE=${base}`),
      ...blocks.slice(1).map((block, i) => `echo '@@block ${i + 1}'\n${block}`),
    ].join('\n');
    // Asynchronously: the server answers from this process's event loop.
    const run = await execFileAsync('bash', ['-e', '-o', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');

    const outputs = run.stdout.split(/^@@block \d+\n/m).slice(1);
    expect(outputs).toHaveLength(blocks.length - 1);
    const evaluationId = /^evaluation: (eval_\S+)$/m.exec(outputs[0]!)?.[1];
    const processorId = /^processor: (proc_\S+)$/m.exec(outputs[5]!)?.[1];
    expect(evaluationId).toBeDefined();
    expect(processorId).toBeDefined();

    // Every `# <result>` line the text shows under a command is what that block printed last.
    let checked = 0;
    blocks.slice(1).forEach((block, i) => {
      const shown = /^# ([[{].*?)(?:\s{2,}\(.*\))?$/m.exec(block)?.[1];
      if (!shown) return;
      const printed = jsonValues(outputs[i]!).at(-1);
      expect(JSON.stringify(printed), `block ${i + 1}`).toMatch(expectedPattern(shown));
      checked++;
    });
    expect(checked).toBeGreaterThanOrEqual(2);

    // And the server holds what the walk-through did.
    const call = client(base!, key!);
    const evaluation = (await call('GET', `/v1/evals/${evaluationId}`)).body;
    expect(evaluation.name).toBe('Invoices (March)');
    expect(evaluation.documents[0].annotation).toEqual({ invoice_number: 'INV-1', total: 43 });
    const iterations = (await call('GET', `/v1/evals/${evaluationId}/iterations?model=local-rules`)).body.data;
    expect(iterations).toHaveLength(1);
    const processor = (await call('GET', `/v1/processors/${processorId}`)).body;
    expect(processor).toMatchObject({ name: 'Invoice reader', model: 'local-rules', temperature: 0.2, reasoning_effort: 'low' });
  });
});
