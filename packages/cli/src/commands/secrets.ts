import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CustomEndpoint, ExternalApiKey } from '@docevals/core';
import { CUSTOM_PROVIDER, PROVIDERS, type Provider } from '@docevals/core/internal';
import type { DocevalsClient } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { table, type Output } from '../output.js';

/** What `secrets set` and `secrets rm` name: a provider (`OpenAI`, `Anthropic`, `Gemini`, `xAI`) or `custom`. */
export type SecretName = Provider | typeof CUSTOM_PROVIDER;

/** The name as the server spells it (case-insensitive: `openai` is `OpenAI`); a usage error listing the names otherwise. */
export function secretName(value: string): SecretName {
  const names: SecretName[] = [...PROVIDERS, CUSTOM_PROVIDER];
  const found = names.find((name) => name.toLowerCase() === value.toLowerCase());
  if (!found) throw new CliError(`unknown provider "${value}": one of ${names.join(', ')}`, EXIT.usage);
  return found;
}

export interface SetSecretOptions {
  /** The environment variable holding the key (instead of stdin). */
  fromEnv?: string;
  /** `custom`: the endpoint's OpenAI-compatible base URL. */
  baseUrl?: string;
  /** `custom`: the model names it serves, comma-separated. */
  models?: string;
}

/** Where the key comes from: stdin (piped, or typed on a terminal without echo), or a named environment variable. */
export interface KeySource {
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** The key: a named variable's value, else stdin's text without its final line break; empty when none was given. */
export async function readKey(name: SecretName, options: Pick<SetSecretOptions, 'fromEnv'>, source: KeySource): Promise<string> {
  if (options.fromEnv) {
    const value = source.env[options.fromEnv];
    if (value === undefined || value === '') throw new CliError(`--from-env ${options.fromEnv}: that variable is not set (or empty)`, EXIT.usage);
    return value.trim();
  }
  if (source.stdin.isTTY) return promptHidden(`${name} key${name === CUSTOM_PROVIDER ? ' (empty: none)' : ''}: `, source);
  let text = '';
  source.stdin.setEncoding('utf8');
  for await (const chunk of source.stdin) text += chunk as string;
  return text.replace(/\r?\n$/, '').trim();
}

/** Reads one line from a terminal without echoing it (the prompt is written to stderr). */
function promptHidden(prompt: string, source: KeySource): Promise<string> {
  source.stderr.write(prompt);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: source.stdin, output: muted, terminal: true });
  return new Promise((resolve) => {
    rl.once('line', (line) => {
      rl.close();
      source.stderr.write('\n');
      resolve(line.trim());
    });
  });
}

/** `docevals secrets set <name>`: stores the key (and a custom endpoint's URL and models); answers what is stored, never the key. */
export async function setSecret(client: DocevalsClient, name: SecretName, options: SetSecretOptions, source: KeySource): Promise<ExternalApiKey | CustomEndpoint> {
  if (name !== CUSTOM_PROVIDER && (options.baseUrl || options.models)) {
    throw new CliError(`--base-url and --models are for the custom endpoint (docevals secrets set custom ...); ${name} has its own URL`, EXIT.usage);
  }
  if (name === CUSTOM_PROVIDER && (!options.baseUrl || !options.models)) {
    throw new CliError('secrets set custom needs --base-url URL and --models NAME[,NAME...] (the model names the endpoint serves)', EXIT.usage);
  }
  // Asked first: a store that keeps no secrets (a local folder, a server without a master key) says so before anyone
  // types a key.
  await client.listSecrets();
  const key = await readKey(name, options, source);
  if (name === CUSTOM_PROVIDER) {
    const models = options.models!.split(',').map((m) => m.trim()).filter((m) => m !== '');
    return client.setCustomEndpoint({ base_url: options.baseUrl!, models, ...(key ? { api_key: key } : {}) });
  }
  if (!key) {
    throw new CliError(
      `no ${name} key given: pipe it on stdin (printf %s "$KEY" | docevals secrets set ${name}) or name a variable holding it (--from-env VAR)`,
      EXIT.usage,
    );
  }
  return client.setProviderKey(name, key);
}

/** What `secrets set` prints. */
export function formatSet(name: SecretName, stored: ExternalApiKey | CustomEndpoint): string {
  if (name === CUSTOM_PROVIDER) {
    const custom = stored as CustomEndpoint;
    return `custom endpoint ${custom.base_url} stored (${custom.has_api_key ? 'with a key' : 'no key'}): its models run as ${custom.models.map((m) => `custom/${m}`).join(', ')}`;
  }
  return `${name} key stored (encrypted on the server), ${stored.last_updated}`;
}

/** What `secrets ls` prints: one line per provider, then the custom endpoint. */
export function formatSecrets(secrets: { keys: ExternalApiKey[]; custom_endpoint: CustomEndpoint }): string {
  const custom = secrets.custom_endpoint;
  const rows = secrets.keys.map((key) => [key.provider, key.is_configured ? 'configured' : 'not configured', key.last_updated ?? '—', '']);
  rows.push([
    CUSTOM_PROVIDER,
    custom.is_configured ? `configured${custom.has_api_key ? '' : ' (no key)'}` : 'not configured',
    custom.last_updated ?? '—',
    custom.is_configured ? `${custom.base_url} · ${custom.models.map((m) => `custom/${m}`).join(', ')}` : '',
  ]);
  return table(['provider', 'key', 'last updated', 'endpoint'], rows);
}

/** `docevals secrets rm <name>`: exit 0 either way; the line says whether there was one. */
export async function removeSecret(client: DocevalsClient, name: SecretName, out: Output): Promise<void> {
  const { deleted } = await client.removeSecret(name);
  const what = name === CUSTOM_PROVIDER ? 'custom endpoint' : `${name} key`;
  out.result(deleted ? `${what} removed` : `no ${what} to remove`, { name, deleted });
}
