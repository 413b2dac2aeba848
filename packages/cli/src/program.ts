import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT } from './errors.js';
import { createOutput, pc } from './output.js';
import { registerAnalyses, registerImportAndRun, registerInit } from './program-commands.js';
import { type Action, type CliConfig, type CommandContext, CONFIG_FILE, commands, examples, type GlobalOptions } from './program-kit.js';
import { registerReads, registerSecrets } from './program-reads.js';

export { CONFIG_FILE, PROVIDER_NAMES, type CliConfig } from './program-kit.js';

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

  const context = async (command: Command): Promise<CommandContext> => {
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
  const action: Action =
    <A extends unknown[]>(work: (ctx: CommandContext, ...args: A) => Promise<number | void>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const ctx = await context(command);
      try {
        exitCode = (await work(ctx, ...(args.slice(0, -1) as A))) ?? EXIT.ok;
      } finally {
        await ctx.client.close();
      }
    };

  registerInit(program);
  for (const register of [registerImportAndRun, registerAnalyses, registerReads, registerSecrets]) register(program, action);

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
