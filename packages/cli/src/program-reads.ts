import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import { CliError, EXIT } from './errors.js';
import { score, table } from './output.js';
import { type Action, commands, examples, PROVIDER_NAMES } from './program-kit.js';

const PROVIDERS_AND_CUSTOM = [...PROVIDER_NAMES, 'custom'].join(', ');

/** `export`, `ls` and `models`. */
export function registerReads(program: Command, action: Action): void {
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
}

/** `secrets set`, `secrets ls` and `secrets rm`. */
export function registerSecrets(program: Command, action: Action): void {
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
    .argument('<provider>', `${PROVIDERS_AND_CUSTOM} (custom: your own OpenAI-compatible endpoint)`)
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
    .argument('<provider>', PROVIDERS_AND_CUSTOM)
    .action(
      action(async ({ client, out }, provider: string) => {
        await (await commands()).removeSecret(client, (await commands()).secretName(provider), out);
      }),
    );
}
