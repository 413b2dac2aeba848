import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The organization a generated key belongs to. */
export const DEFAULT_ORGANIZATION = 'default';

export interface ApiKeys {
  /** key -> organization */
  keys: Record<string, string>;
  /** The key created by this start, if one was: print it, once. */
  generated?: string;
  /** Where the keys were read from or written to; undefined when they came from the environment. */
  file?: string;
}

/**
 * The keys of the standalone server: `DOCEVALS_API_KEYS` when set; else `DATA_DIR/api-keys.json`
 * (`{"keys": {"<key>": "<organization>"}}`), created on first start with one random key for the organization
 * `default` (file mode 0600, never overwritten: a second server starting at the same moment reads the first's).
 *
 * @example
 * const { keys, generated } = await loadApiKeys({ dataDir: './.docevals-data' });
 * if (generated) console.log(`API key: ${generated}`);
 */
export async function loadApiKeys(options: { dataDir: string; fromEnv?: Record<string, string> }): Promise<ApiKeys> {
  if (options.fromEnv) return { keys: options.fromEnv };
  const file = join(options.dataDir, 'api-keys.json');
  const existing = await readKeyFile(file);
  if (existing) return { keys: existing, file };

  await mkdir(options.dataDir, { recursive: true });
  const key = `dk_${randomBytes(24).toString('base64url')}`;
  const keys = { [key]: DEFAULT_ORGANIZATION };
  try {
    await writeFile(file, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const raced = await readKeyFile(file);
    if (raced) return { keys: raced, file };
    throw error;
  }
  return { keys, generated: key, file };
}

async function readKeyFile(file: string): Promise<Record<string, string> | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = JSON.parse(text) as { keys?: unknown };
  const keys = parsed.keys;
  const valid =
    keys !== null &&
    typeof keys === 'object' &&
    Object.entries(keys).length > 0 &&
    Object.entries(keys).every(([k, org]) => k !== '' && typeof org === 'string' && org !== '');
  if (!valid) throw new Error(`${file} must look like {"keys": {"<key>": "<organization>"}}.`);
  return keys as Record<string, string>;
}
