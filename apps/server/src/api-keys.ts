import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The organization a generated key belongs to. */
export const DEFAULT_ORGANIZATION = 'default';

export interface ApiKeys {
  /** key -> organization */
  keys: Record<string, string>;
  /**
   * A generated key no start has shown yet: created by this start, or by an earlier one that stopped before it
   * could listen (port taken, data folder in use). Print it, then call `markShown()`.
   */
  generated?: string;
  /** Where the keys were read from or written to; undefined when they came from the environment. */
  file?: string;
  /** Records in the key file that `generated` was shown, so later starts do not print it again. */
  markShown(): Promise<void>;
}

/**
 * The keys of the standalone server: `DOCEVALS_API_KEYS` when set; else `DATA_DIR/api-keys.json`
 * (`{"keys": {"<key>": "<organization>"}}`), created on first start with one random key for the organization
 * `default` (file mode 0600, never overwritten: a second server starting at the same moment reads the first's).
 * A generated key stays marked `"shown": false` in the file until a start has printed it, so a first start that
 * fails before listening does not lose it: the next start prints it.
 *
 * @example
 * const { keys, generated, markShown } = await loadApiKeys({ dataDir: './.docevals-data' });
 * if (generated) {
 *   console.log(`API key: ${generated}`);
 *   await markShown();
 * }
 */
export async function loadApiKeys(options: { dataDir: string; fromEnv?: Record<string, string> }): Promise<ApiKeys> {
  const nothingToMark = async () => {};
  if (options.fromEnv) return { keys: options.fromEnv, markShown: nothingToMark };
  const file = join(options.dataDir, 'api-keys.json');
  const found = (keyFile: KeyFile): ApiKeys => {
    const unshown = keyFile.shown === false ? Object.keys(keyFile.keys)[0] : undefined;
    return unshown
      ? { keys: keyFile.keys, file, generated: unshown, markShown: () => markKeyFileShown(file) }
      : { keys: keyFile.keys, file, markShown: nothingToMark };
  };
  const existing = await readKeyFile(file);
  if (existing) return found(existing);

  await mkdir(options.dataDir, { recursive: true });
  const key = `dk_${randomBytes(24).toString('base64url')}`;
  const created: KeyFile = { keys: { [key]: DEFAULT_ORGANIZATION }, shown: false };
  try {
    await writeFile(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const raced = await readKeyFile(file);
    if (raced) return found(raced);
    throw error;
  }
  return found(created);
}

/** `api-keys.json`. `shown: false` marks a generated key no start has printed yet; absent means shown. */
interface KeyFile {
  keys: Record<string, string>;
  shown?: boolean;
}

/**
 * Rewrites the key file with `"shown": true`, keeping the keys it holds now (edits made meanwhile included). The new
 * content goes to a temporary file renamed over the old one, so a reader sees either file whole. Two servers
 * starting together may both print the key before either marks it: that prints it twice, never zero times.
 */
async function markKeyFileShown(file: string): Promise<void> {
  const current = await readKeyFile(file);
  if (!current || current.shown !== false) return;
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ keys: current.keys }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

async function readKeyFile(file: string): Promise<KeyFile | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = JSON.parse(text) as { keys?: unknown; shown?: unknown };
  const keys = parsed.keys;
  const valid =
    keys !== null &&
    typeof keys === 'object' &&
    Object.entries(keys).length > 0 &&
    Object.entries(keys).every(([k, org]) => k !== '' && typeof org === 'string' && org !== '');
  if (!valid) throw new Error(`${file} must look like {"keys": {"<key>": "<organization>"}}.`);
  return { keys: keys as Record<string, string>, ...(parsed.shown === false ? { shown: false } : {}) };
}
