import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { DocevalsClient } from './client.js';
import { CliError, EXIT } from './errors.js';
import { createOutput, pc, score, table, type Output } from './output.js';

/** The commands' code, loaded when a command runs (commands.ts): `--help` never loads the core. */
const commands = () => import('./commands.js');

/** `docevals.config.json`: defaults for flags (a flag or an environment variable wins). */
export interface CliConfig {
  url?: string;
  dataDir?: string;
  name?: string;
  folder?: string;
  schema?: string;
  annotations?: string;
  model?: string;
}

export const CONFIG_FILE = 'docevals.config.json';

interface GlobalOptions {
  url?: string;
  apiKey?: string;
  dataDir?: string;
  json?: boolean;
  config: string;
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
};
const fraction = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('a number from 0 to 1');
  return n;
};

async function loadConfig(path: string, explicit: boolean): Promise<CliConfig> {
  if (!existsSync(path)) {
    if (explicit) throw new CliError(`config file ${path} not found`, EXIT.usage);
    return {};
  }
  try {
    const config = JSON.parse(await readFile(path, 'utf8')) as CliConfig;
    // Paths in the config are relative to its folder.
    const base = dirname(resolve(path));
    for (const key of ['dataDir', 'folder', 'schema', 'annotations'] as const) if (config[key]) config[key] = resolve(base, config[key]);
    return config;
  } catch (error) {
    throw new CliError(`config file ${path} is not valid JSON: ${(error as Error).message}`, EXIT.usage);
  }
}

/** The providers (as PROVIDERS of @docevals/core, which `--help` does not load). */
export const PROVIDER_NAMES = ['OpenAI', 'Anthropic', 'Gemini', 'xAI'] as const;

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/**
 * The `docevals` program (commander). `run` the returned promise's exit code: the entry point sets it.
 *
 * @example
 * const code = await runCli(['node', 'docevals', 'ls', '--data-dir', './data', '--json']);
 * process.exitCode = code;
 */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('docevals');
  program
    .description('Measure document extraction against ground truth: load a folder, run a model, gate CI on regressions.')
    .version('0.1.0')
    .addOption(new Option('--url <url>', 'docevals server (with its base path if any)').env('DOCEVALS_URL'))
    .addOption(new Option('--api-key <key>', 'API key for the server').env('DOCEVALS_API_KEY'))
    .addOption(new Option('--data-dir <dir>', 'use a local lowdb folder in-process instead of a server (organization "local")').env('DOCEVALS_DATA_DIR'))
    .option('--json', 'machine-readable output on stdout')
    .option('--config <file>', 'defaults for flags', CONFIG_FILE)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(pc.red(text)) })
    .addHelpText(
      'after',
      `${examples([
        'docevals init',
        'docevals import ./invoices --schema schema.json --annotations annotations.jsonl --name invoices',
        'docevals run invoices --model local-rules',
        'docevals gate invoices --min-mean 0.9 --max-regression 0.02 --against best --format junit --output gate.xml',
      ])}
Server: --url or DOCEVALS_URL, --api-key or DOCEVALS_API_KEY; or --data-dir DIR for a local store, no server.
Exit codes: 0 ok, 1 gate failed, 2 usage, 3 server or network error, 4 request refused by the server,
5 run failed or cancelled / import refused something, 130 interrupted. See docs/cli.md.`,
    );

  const context = async (command: Command): Promise<{ client: DocevalsClient; out: Output; config: CliConfig; globals: GlobalOptions }> => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const config = await loadConfig(globals.config, program.getOptionValueSource('config') !== 'default');
    const out = createOutput(Boolean(globals.json));
    const dataDir = globals.dataDir ?? (globals.url ? undefined : config.dataDir);
    const url = globals.url ?? config.url;
    const concurrency = (command.opts() as { concurrency?: number }).concurrency;
    if (dataDir) return { client: (await commands()).localClient({ dataDir: resolve(dataDir), concurrency }), out, config, globals };
    if (!url) throw new CliError(`no server: pass --url (or set DOCEVALS_URL), or --data-dir DIR for a local store (or set either in ${CONFIG_FILE})`, EXIT.usage);
    return { client: (await commands()).httpClient({ url, apiKey: globals.apiKey }), out, config, globals };
  };
  /** Runs an action with a client, closing it afterwards; the action returns the exit code. */
  const action =
    <A extends unknown[]>(work: (ctx: Awaited<ReturnType<typeof context>>, ...args: A) => Promise<number | void>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const ctx = await context(command);
      try {
        exitCode = (await work(ctx, ...(args.slice(0, -1) as A))) ?? EXIT.ok;
      } finally {
        await ctx.client.close();
      }
    };
  const prefix = 'docevals';

  program
    .command('init')
    .description(`write a starter ${CONFIG_FILE}, an example schema, two example documents and their annotations`)
    .option('--force', 'overwrite files that exist')
    .addHelpText('after', examples(['docevals init', 'docevals --data-dir .docevals-data import documents --name example']))
    .action(async (options: { force?: boolean }, command: Command) => {
      const out = createOutput(Boolean(command.optsWithGlobals<GlobalOptions>().json));
      const files: Record<string, string> = {
        [CONFIG_FILE]: `${JSON.stringify({ dataDir: '.docevals-data', name: 'example', folder: 'documents', schema: 'schema.json', annotations: 'annotations.jsonl', model: 'local-rules' }, null, 2)}\n`,
        'schema.json': `${JSON.stringify({ type: 'object', properties: { invoice_number: { type: 'string', description: 'Invoice number' }, total: { type: 'number', description: 'Total amount due' }, due_date: { type: ['string', 'null'], format: 'date' } }, required: ['invoice_number', 'total'] }, null, 2)}\n`,
        'documents/invoice-1.txt': 'Invoice number: INV-1\nTotal: 42.00\nDue date: 2026-01-31\n',
        'documents/invoice-2.txt': 'Invoice number: INV-2\nTotal: 1,250.50\n',
        'annotations.jsonl': [
          { filename: 'invoice-1.txt', annotation: { invoice_number: 'INV-1', total: 42, due_date: '2026-01-31' } },
          { filename: 'invoice-2.txt', annotation: { invoice_number: 'INV-2', total: 1250.5, due_date: null } },
        ].map((r) => JSON.stringify(r)).join('\n') + '\n',
      };
      const written: string[] = [];
      const kept: string[] = [];
      for (const [path, text] of Object.entries(files)) {
        if (existsSync(path) && !options.force) {
          kept.push(path);
          continue;
        }
        await mkdir(dirname(resolve(path)), { recursive: true });
        await writeFile(path, text);
        written.push(path);
      }
      out.result(
        [
          ...written.map((p) => `wrote ${p}`),
          ...kept.map((p) => pc.dim(`kept ${p} (exists; --force overwrites)`)),
          '',
          'next:',
          '  docevals import documents            # folder, schema, annotations and name come from the config',
          '  docevals run example --model local-rules',
        ].join('\n'),
        { written, kept },
      );
    });

  program
    .command('import')
    .description('create or extend an evaluation from a folder of PDFs, images and text files')
    .argument('[folder]', 'the documents (default: "folder" in the config)')
    .option('--schema <file>', 'JSON schema of the extraction (needed to create the evaluation)')
    .option('--annotations <file>', 'ground truth: .jsonl ({"filename", "annotation"} per line) or .csv (filename + one column per field)')
    .option('--name <name>', 'the evaluation: created when no evaluation has this name, else only new files are sent')
    .option('--model <model>', 'default model stored on a new evaluation')
    .option('--concurrency <n>', 'files uploaded at once', positiveInt, 4)
    .addHelpText(
      'after',
      examples([
        'docevals import ./invoices --schema schema.json --annotations annotations.jsonl --name invoices',
        'docevals import ./invoices --annotations truth.csv --name invoices   # again: only new files are sent',
      ]) + '\nFiles are typed by content (PDF, PNG, JPEG, GIF, WebP, else UTF-8 text) and matched to annotations by their path\nin the folder. Exit 5 when a file or an annotation row is refused (the summary says why).\n',
    )
    .action(
      action(async ({ client, out, config }, folderArg: string | undefined, options: { schema?: string; annotations?: string; name?: string; model?: string; concurrency: number }) => {
        const folder = folderArg ?? config.folder;
        const annotations = options.annotations ?? config.annotations;
        const name = options.name ?? config.name;
        if (!folder) throw new CliError('import needs a folder', EXIT.usage);
        if (!annotations) throw new CliError('import needs --annotations FILE (.jsonl or .csv)', EXIT.usage);
        if (!name) throw new CliError('import needs --name NAME', EXIT.usage);
        const report = await (await commands()).importFolder(client, folder, { schema: options.schema ?? config.schema, annotations, name, model: options.model ?? config.model, concurrency: options.concurrency }, out);
        out.result((await commands()).formatImportReport(report), report);
        return report.refused.length ? EXIT.incomplete : EXIT.ok;
      }),
    );

  program
    .command('run')
    .description('run a model over an evaluation as a background iteration, with live progress')
    .argument('<eval>', 'evaluation id or name')
    .option('--model <model>', 'model to run (default: "model" in the config)')
    .option('--n-consensus <k>', 'extractions per document, reconciled', positiveInt)
    .option('--concurrency <n>', 'extractor calls in flight (with --data-dir; a server uses its own setting)', positiveInt)
    .addHelpText(
      'after',
      examples(['docevals run invoices --model local-rules', 'docevals run eval_abc123 --model gpt-4.1-mini --n-consensus 3 --json']) +
        '\nCtrl-C asks whether to cancel the iteration or leave it running (without a terminal it is left running).\nExit 0 completed, 5 failed or cancelled, 130 interrupted.\n',
    )
    .action(
      action(async ({ client, out, config }, ref: string, options: { model?: string; nConsensus?: number }) => {
        const model = options.model ?? config.model;
        if (!model) throw new CliError('run needs --model (docevals models lists them)', EXIT.usage);
        const evaluation = await (await commands()).resolveEvaluation(client, ref);
        const report = await (await commands()).runIteration(client, evaluation, { model, nConsensus: options.nConsensus, commandPrefix: prefix }, out);
        out.result((await commands()).formatRunReport(report), report);
        return (await commands()).runExitCode(report);
      }),
    );

  program
    .command('cancel')
    .description("cancel an iteration's run (predictions so far are kept)")
    .argument('<eval>', 'evaluation id or name')
    .argument('<iteration>', 'iteration id')
    .addHelpText('after', examples(['docevals cancel invoices eval_iter_abc123']))
    .action(
      action(async ({ client, out }, ref: string, iterationId: string) => {
        const evaluation = await (await commands()).resolveEvaluation(client, ref);
        const iteration = await client.cancelIteration(evaluation.id, iterationId);
        out.result(`${iteration.id}: ${iteration.status} (${iteration.progress.succeeded + iteration.progress.failed}/${iteration.progress.total} done)`, iteration);
      }),
    );

  program
    .command('compare')
    .description('compare two iterations: fields worst first, regressed documents')
    .argument('<eval>', 'evaluation id or name')
    .option('--base <iter>', 'iteration id, best or previous', 'previous')
    .option('--head <iter>', 'iteration id or latest', 'latest')
    .option('--threshold <t>', 'a document moving less than this is unchanged', fraction)
    .addHelpText('after', examples(['docevals compare invoices', 'docevals compare invoices --base best --head eval_iter_abc123 --json']))
    .action(
      action(async ({ client, out }, ref: string, options: { base: string; head: string; threshold?: number }) => {
        const evaluation = await (await commands()).resolveEvaluation(client, ref);
        const report = await (await commands()).compareIterations(client, evaluation, options.base, options.head, options.threshold);
        out.result((await commands()).formatCompare(report), report);
      }),
    );

  program
    .command('gate')
    .description('fail (exit 1) when the latest iteration failed documents, is below a bar, or regressed against a baseline')
    .argument('<eval>', 'evaluation id or name')
    .option('--max-failed <n>', 'failed labeled documents allowed: a count (3) or a share (5%); default 0, any failure fails the gate')
    .option('--min-mean <m>', 'lowest acceptable mean similarity (failures counting 0) of the latest finished iteration', fraction)
    .option('--max-regression <d>', 'largest acceptable drop of the mean against the baseline (same documents)', fraction)
    .option('--significant', 'with --max-regression: fail only when the drop is significant (95% paired bootstrap interval excludes 0)')
    .addOption(new Option('--against <baseline>', 'baseline for --max-regression').choices(['best', 'previous']).default('best'))
    .addOption(new Option('--format <format>', 'report format').choices(['text', 'json', 'junit', 'github']).default('text'))
    .option('-o, --output <file>', 'write the report to a file (JUnit XML for CI) instead of stdout')
    .addHelpText(
      'after',
      examples([
        'docevals gate invoices',
        'docevals gate invoices --min-mean 0.9 --max-failed 2%',
        'docevals gate invoices --min-mean 0.9 --max-regression 0.02 --against best --format junit -o docevals-gate.xml',
        'docevals gate invoices --max-regression 0.01 --significant --against previous --format github',
      ]) + '\nExit 0 passed, 1 failed (the report says which check and why, and names the failed documents).\n',
    )
    .action(
      action(async ({ client, out }, ref: string, options: { minMean?: number; maxRegression?: number; maxFailed?: string; significant?: boolean; against: 'best' | 'previous'; format: string; output?: string }) => {
        const evaluation = await (await commands()).resolveEvaluation(client, ref);
        const report = await (await commands()).gate(client, evaluation, options);
        const format = out.json ? 'json' : options.format;
        const text =
          format === 'json' ? JSON.stringify(report, null, 2) : format === 'junit' ? (await commands()).formatGateJunit(report) : format === 'github' ? (await commands()).formatGateGithub(report) : (await commands()).formatGateText(report);
        await (await commands()).writeOrPrint(text, options.output);
        // With the report in a file, the verdict still shows in the log.
        if (options.output) process.stderr.write(`${(await commands()).formatGateText(report)}\n${pc.dim(`report written to ${options.output}`)}\n`);
        return report.passed ? EXIT.ok : EXIT.gateFailed;
      }),
    );

  program
    .command('export')
    .description("an iteration's values and scores, one row per document and field, as CSV or JSON Lines")
    .argument('<eval>', 'evaluation id or name')
    .argument('<iter>', 'iteration id, latest, previous or best')
    .addOption(new Option('--format <format>', 'file format').choices(['csv', 'jsonl']).default('csv'))
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .addHelpText('after', examples(['docevals export invoices latest --format csv -o results.csv', 'docevals export invoices eval_iter_abc123 --format jsonl | jq .']))
    .action(
      action(async ({ client, out }, ref: string, iterRef: string, options: { format: 'csv' | 'jsonl'; output?: string }) => {
        const evaluation = await (await commands()).resolveEvaluation(client, ref);
        const iterations = await client.listIterations(evaluation.id);
        const latest = (await commands()).pickIteration(iterations, 'latest');
        const iteration = (await commands()).pickIteration(iterations, iterRef, latest ?? undefined);
        if (!iteration) throw new CliError(`${evaluation.name} has no ${iterRef} iteration`, EXIT.usage);
        const chunks = await client.exportIteration(evaluation.id, iteration.id, options.format);
        if (options.output) {
          await pipeline(Readable.from(chunks), createWriteStream(options.output));
          out.note(`wrote ${options.output}`);
          if (out.json) out.result('', { evaluation_id: evaluation.id, iteration_id: iteration.id, format: options.format, output: options.output });
        } else {
          await pipeline(Readable.from(chunks), process.stdout, { end: false });
        }
      }),
    );

  program
    .command('ls')
    .description('list evaluations with their documents, iterations and latest mean')
    .addHelpText('after', examples(['docevals ls', 'docevals ls --json | jq ".[].name"']))
    .action(
      action(async ({ client, out }) => {
        const evaluations = await client.listEvaluations();
        const rows = await Promise.all(
          evaluations.map(async (e) => {
            const iterations = await client.listIterations(e.id);
            const latest = (await commands()).pickIteration(iterations, 'latest');
            return { id: e.id, name: e.name, documents: e.document_count, iterations: iterations.length, latest: latest ? { id: latest.id, model: latest.inference_settings.model, mean_similarity: latest.metric_results.mean_similarity } : null };
          }),
        );
        out.result(
          rows.length
            ? table(['id', 'name', 'docs', 'iters', 'latest mean', 'model'], rows.map((r) => [r.id, r.name, String(r.documents), String(r.iterations), score(r.latest?.mean_similarity), r.latest?.model ?? '—']), [2, 3, 4])
            : `no evaluations on ${client.target}`,
          rows,
        );
      }),
    );

  program
    .command('models')
    .description('the models (and patterns) the server or local store can run')
    .addHelpText('after', examples(['docevals models', 'docevals --data-dir .docevals-data models --json']))
    .action(
      action(async ({ client, out }) => {
        const models = await client.models();
        out.result(models.join('\n'), models);
      }),
    );

  const secrets = program
    .command('secrets')
    .description("the organization's model provider keys, kept encrypted by the server (docs/secrets.md)")
    .addHelpText(
      'after',
      examples([
        'printf %s "$ANTHROPIC_KEY" | docevals secrets set Anthropic',
        'docevals secrets set OpenAI --from-env MY_OPENAI_KEY',
        'docevals secrets set custom --base-url http://localhost:11434/v1 --models llama3.1,qwen2.5 < /dev/null',
        'docevals secrets ls',
        'docevals secrets rm Anthropic',
      ]),
    );
  secrets
    .command('set')
    .description('store (or replace) a provider key: read from stdin (typed without echo on a terminal) or --from-env, never from the command line')
    .argument('<provider>', `${[...PROVIDER_NAMES, 'custom'].join(', ')} (custom: your own OpenAI-compatible endpoint)`)
    .option('--from-env <var>', 'read the key from this environment variable instead of stdin')
    .option('--base-url <url>', 'custom: the endpoint\'s OpenAI-compatible base URL')
    .option('--models <names>', 'custom: the model names it serves, comma-separated (run as custom/<name>)')
    .action(
      action(async ({ client, out }, provider: string, options: { fromEnv?: string; baseUrl?: string; models?: string }) => {
        const name = (await commands()).secretName(provider);
        const stored = await (await commands()).setSecret(client, name, options, { stdin: process.stdin, stderr: process.stderr, env: process.env });
        out.result((await commands()).formatSet(name, stored), stored);
      }),
    );
  secrets
    .command('ls')
    .description('which providers have a key (never the key) and the custom endpoint')
    .action(
      action(async ({ client, out }) => {
        const listed = await client.listSecrets();
        out.result((await commands()).formatSecrets(listed), listed);
      }),
    );
  secrets
    .command('rm')
    .description("remove a provider's key (its models then use the server's own key, if any) or the custom endpoint")
    .argument('<provider>', `${[...PROVIDER_NAMES, 'custom'].join(', ')}`)
    .action(
      action(async ({ client, out }, provider: string) => {
        await (await commands()).removeSecret(client, (await commands()).secretName(provider), out);
      }),
    );

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; a parse error was printed by commander.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      const json = argv.includes('--json');
      if (json) process.stdout.write(`${JSON.stringify({ error: { message: error.message, exit_code: error.exitCode } }, null, 2)}\n`);
      process.stderr.write(`${pc.red('error:')} ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`${pc.red('unexpected error:')} ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.server;
  }
}
