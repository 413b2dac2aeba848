import { InvalidArgumentError, type Command } from 'commander';
import type { DocevalsClient } from './client.js';
import type { Output } from './output.js';

/** The commands' code, loaded when a command runs (commands.ts): `--help` never loads the core. */
export const commands = () => import('./commands.js');

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

export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  dataDir?: string;
  json?: boolean;
  config: string;
}

/** What an action works with: the client (closed after it), the output, the config and the global options. */
export interface CommandContext {
  client: DocevalsClient;
  out: Output;
  config: CliConfig;
  globals: GlobalOptions;
}

/** Wraps a command's work as a commander action: a client opened for it and closed after, the exit code kept. */
export type Action = <A extends unknown[]>(
  work: (ctx: CommandContext, ...args: A) => Promise<number | void>,
) => (...args: unknown[]) => Promise<void>;

/** Adds commands to the program (one group of them). */
export type Register = (program: Command, action: Action) => void;

export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
};
export const fraction = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('a number from 0 to 1');
  return n;
};

/** The providers (as PROVIDERS of @docevals/core, which `--help` does not load). */
export const PROVIDER_NAMES = ['OpenAI', 'Anthropic', 'Gemini', 'xAI'] as const;

export const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
