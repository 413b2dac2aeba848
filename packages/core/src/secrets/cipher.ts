import { DocevalsError } from '../errors.js';

/**
 * Encrypts and decrypts an organization's secrets (provider keys) at rest. The service never stores a secret
 * without one, and never returns what it decrypts to a caller: only extractors receive it, per call.
 */
export interface SecretCipher {
  /** The id of the key new secrets are encrypted with (a fingerprint of it, never the key). */
  readonly keyId: string;
  /** `plaintext` sealed under the current key; `context` (the organization and the secret's name) is bound to it. */
  encrypt(plaintext: string, context: string): Promise<string>;
  /**
   * Opens a sealed secret with whichever configured key sealed it; `stale` when that was not the current key (the
   * caller re-encrypts it). A secret sealed by no configured key, or altered, or moved to another context: a clear
   * `DocevalsError('not_configured')` naming the key id it needs, never garbage.
   */
  decrypt(sealed: string, context: string): Promise<{ plaintext: string; stale: boolean }>;
}

/** The format tag of a sealed secret: `dsk1.<key id>.<iv>.<ciphertext+tag>` (base64url parts). */
const FORMAT = 'dsk1';

/**
 * A master key from text: 32 bytes as base64 / base64url (44 or 43 characters) or hex (64 characters), which is
 * what `openssl rand -base64 32` or `openssl rand -hex 32` print. Anything else throws naming `name`.
 *
 * @example
 * parseMasterKey('q0y7+0b2ZJ3B4n3Wc9F8e2ZlS6bJb1kB3r6w2m5n8pA=', 'DOCEVALS_SECRETS_KEY'); // Uint8Array(32)
 */
export function parseMasterKey(text: string, name = 'the secrets key'): Uint8Array {
  const value = text.trim();
  let bytes: Uint8Array | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(value)) {
    bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(value.slice(i * 2, i * 2 + 2), 16);
  } else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    bytes = fromBase64(value);
  }
  if (!bytes || bytes.length !== 32) {
    throw new DocevalsError(
      'not_configured',
      `${name} must be 32 random bytes as base64 or hex (for example the output of \`openssl rand -base64 32\`).`,
    );
  }
  return bytes;
}

/** 32 random bytes as base64: a new master key. */
export function generateMasterKey(): string {
  return toBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)), false);
}

/**
 * AES-256-GCM under a host's master keys, with Web Crypto (`globalThis.crypto.subtle`: Node 20+, browsers, Deno,
 * workers). The first key encrypts; every key decrypts, so a host rotates by putting the new key first and the old
 * one second, re-encrypting (`docevals.secrets.reencrypt()`), then dropping the old one. Each secret has its own
 * random 96-bit IV and carries its key's id (the first 12 hex digits of SHA-256 of the key), and its context (the
 * organization and the secret's name) is the GCM additional data: a sealed value copied to another organization does
 * not open.
 *
 * @example
 * const cipher = await aesGcmCipher([parseMasterKey(process.env.DOCEVALS_SECRETS_KEY!)]);
 * const sealed = await cipher.encrypt('sk-...', 'org_1/OpenAI');
 * (await cipher.decrypt(sealed, 'org_1/OpenAI')).plaintext; // 'sk-...'
 */
export async function aesGcmCipher(keys: ReadonlyArray<Uint8Array>): Promise<SecretCipher> {
  if (keys.length === 0) throw new DocevalsError('not_configured', 'aesGcmCipher needs at least one master key.');
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new DocevalsError('not_configured', 'Web Crypto (globalThis.crypto.subtle) is not available here.');
  const loaded = await Promise.all(
    keys.map(async (raw) => {
      if (raw.length !== 32) throw new DocevalsError('not_configured', 'A master key must be 32 bytes (AES-256).');
      const digest = new Uint8Array(await subtle.digest('SHA-256', copy(raw)));
      const id = [...digest.slice(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join('');
      return { id, key: await subtle.importKey('raw', copy(raw), 'AES-GCM', false, ['encrypt', 'decrypt']) };
    }),
  );
  const current = loaded[0]!;
  const encoder = new TextEncoder();
  return {
    keyId: current.id,
    async encrypt(plaintext, context) {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
      const sealed = await subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
        current.key,
        encoder.encode(plaintext),
      );
      return [FORMAT, current.id, toBase64(iv, true), toBase64(new Uint8Array(sealed), true)].join('.');
    },
    async decrypt(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== FORMAT) {
        throw new DocevalsError('not_configured', 'A stored secret is not in a format this version reads.');
      }
      const [, keyId, iv, data] = parts as [string, string, string, string];
      const entry = loaded.find((k) => k.id === keyId);
      if (!entry) {
        throw new DocevalsError(
          'not_configured',
          `The stored secrets were encrypted with the master key ${keyId}, which is not configured here (the configured ` +
            `key is ${current.id}). Start with that key (DOCEVALS_SECRETS_KEY), or give it as the previous key ` +
            '(DOCEVALS_SECRETS_KEY_PREVIOUS) to re-encrypt them under the new one.',
        );
      }
      try {
        const plain = await subtle.decrypt(
          { name: 'AES-GCM', iv: copy(fromBase64(iv)), additionalData: encoder.encode(context) },
          entry.key,
          copy(fromBase64(data)),
        );
        return { plaintext: new TextDecoder().decode(plain), stale: entry !== current };
      } catch {
        throw new DocevalsError('not_configured', `A stored secret does not open with the master key ${keyId}: it was altered or moved.`);
      }
    },
  };
}

function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

function toBase64(bytes: Uint8Array, url: boolean): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const text = btoa(binary);
  return url ? text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : text;
}

function fromBase64(text: string): Uint8Array {
  const normal = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = normal + '='.repeat((4 - (normal.length % 4)) % 4);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
