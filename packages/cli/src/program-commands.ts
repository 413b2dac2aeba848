import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { CliError, EXIT } from './errors.js';
import { createOutput, pc } from './output.js';
import { type Action, CONFIG_FILE, commands, examples, fraction, type GlobalOptions, positiveInt } from './program-kit.js';

// The commands that make and measure evaluations; program-reads.ts has those that read them and the secrets.

/** `init`: a starter config, schema, documents and annotations. */
export function registerInit(program: Command): void {
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
}

/** `import`, `run` and `cancel`. */
export function registerImportAndRun(program: Command, action: Action): void {
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
        const report = await (await commands()).runIteration(client, evaluation, { model, nConsensus: options.nConsensus, commandPrefix: 'docevals' }, out);
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
}

/** `compare` and `gate`. */
export function registerAnalyses(program: Command, action: Action): void {
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
}
