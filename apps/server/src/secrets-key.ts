import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { aesGcmCipher, generateMasterKey, parseMasterKey, type SecretCipher } from '@docevals/core';
import type { StandaloneConfig } from './config.js';

export interface SecretsKey {
  cipher: SecretCipher;
  /** Where the key came from, for the start-up line (never the key). */
  source: string;
}

/**
 * The master key that seals organization secrets: `DOCEVALS_SECRETS_KEY`, else the file `DOCEVALS_SECRETS_KEY_FILE`,
 * else `DATA_DIR/secrets.key`, generated on first start (32 random bytes as base64, mode 0600: readable by the
 * server's user only; never overwritten, so two servers starting at once share the first one's). With
 * `DOCEVALS_SECRETS_KEY_PREVIOUS`, the previous key still opens what it sealed (rotation).
 *
 * @example
 * const { cipher, source } = await loadSecretsKey(readConfig(process.env));
 */
export async function loadSecretsKey(config: Pick<StandaloneConfig, 'dataDir' | 'secrets'>): Promise<SecretsKey> {
  const previous = config.secrets?.previousKey ? [parseMasterKey(config.secrets.previousKey, 'DOCEVALS_SECRETS_KEY_PREVIOUS')] : [];
  if (config.secrets?.key) {
    return { cipher: await aesGcmCipher([parseMasterKey(config.secrets.key, 'DOCEVALS_SECRETS_KEY'), ...previous]), source: 'DOCEVALS_SECRETS_KEY' };
  }
  const file = config.secrets?.keyFile ?? join(config.dataDir, 'secrets.key');
  let text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new Error(`cannot read the secrets key file ${file}: ${error.message}`);
  });
  if (text === null) {
    if (config.secrets?.keyFile) throw new Error(`DOCEVALS_SECRETS_KEY_FILE names ${file}, which does not exist.`);
    await mkdir(config.dataDir, { recursive: true });
    try {
      await writeFile(file, `${generateMasterKey()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    text = await readFile(file, 'utf8');
  }
  const name = config.secrets?.keyFile ? 'DOCEVALS_SECRETS_KEY_FILE' : file;
  return { cipher: await aesGcmCipher([parseMasterKey(text, name), ...previous]), source: file };
}
