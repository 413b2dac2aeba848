import { DocevalsError, validationError } from '../errors.js';
import type { Extractor, ProviderCredentials } from '../extractor.js';
import { describeModelPattern, findExtractor } from '../extraction/model-routing.js';
import { listModels } from '../extraction/model-list.js';
import type { Model, ModelList } from '../schemas/models.js';
import {
  createExternalApiKeyInputSchema,
  externalApiKeyRefInputSchema,
  setCustomEndpointInputSchema,
  type CreateExternalApiKeyInput,
  type CustomEndpoint,
  type ExternalApiKey,
  type ExternalApiKeyDeleted,
  type ExternalApiKeyRefInput,
  type SetCustomEndpointInput,
} from '../schemas/secrets.js';
import type { SecretCipher } from '../secrets/cipher.js';
import { CUSTOM_MODEL_PREFIX, CUSTOM_PROVIDER, PROVIDER_INFO, PROVIDERS, type Provider } from '../secrets/providers.js';
import type { RecordCollection, Storage, StoredRecordBase } from '../storage.js';
import { bindContext } from './bind-context.js';
import { parseInput } from './validate.js';
import { retryCompareAndSet } from './update-record.js';

/**
 * The reserved organization id under which organization secrets are stored, in the generic record collection
 * `storage.jobs` (whose runners read only {@link JOBS_SCOPE}): one record per organization and provider, id
 * `<organization>.<provider>`, so a host re-encrypts every organization's secrets by reading this one scope. No
 * caller may use it as an organization.
 */
export const SECRETS_SCOPE = 'docevals-secrets';

/** A stored secret: the payload (key, and a custom endpoint's base URL and models) sealed by the host's cipher. */
export interface SecretRecord extends StoredRecordBase {
  organization_id: typeof SECRETS_SCOPE;
  /** The organization the secret belongs to ("" for the master-key check record). */
  secret_organization_id: string;
  /** A provider (`OpenAI`, ...), `custom`, or `check`. */
  name: string;
  /** `dsk1.<key id>.<iv>.<ciphertext>`: see {@link SecretCipher}. */
  sealed: string;
  key_id: string;
  /** When the organization last set it (a re-encryption does not move it). */
  last_updated: string;
}

/** What a secret seals. */
interface SecretPayload {
  api_key?: string;
  base_url?: string;
  models?: string[];
}

const CHECK_ID = 'check';
const CHECK_TEXT = 'docevals master key check';

/** How to give this server a master key: said by every secrets call of a host without one. */
export const NO_MASTER_KEY_MESSAGE =
  'Organization secrets are not configured on this server: it has no master key to encrypt them with. The standalone ' +
  'server generates one in its data folder (secrets.key); otherwise set DOCEVALS_SECRETS_KEY to 32 random bytes as ' +
  'base64 (openssl rand -base64 32) or DOCEVALS_SECRETS_KEY_FILE to a file holding them. An embedding host passes ' +
  '`secrets: { cipher: await aesGcmCipher([key]) }` to createDocevals.';

/** The secrets collection: records of the generic `jobs` collection in {@link SECRETS_SCOPE}. */
function collection(storage: Storage): RecordCollection<SecretRecord> {
  // `jobs` is typed for its job records; the secrets are a second shape kept whole in the same collection under
  // their own scope (every adapter stores and answers a record as it was written), so this scope reads back as them.
  return storage.jobs as unknown as RecordCollection<SecretRecord>;
}

const recordId = (organizationId: string, name: string) => `${organizationId}.${name}`;
const context = (organizationId: string, name: string) => `${organizationId}/${name}`;

export interface SecretsContext {
  storage: Storage;
  cipher: SecretCipher | null;
  extractors: ReadonlyArray<Extractor>;
  now(): string;
}

/** Masks the user and password of a URL (a LiteLLM or Azure URL may carry them). */
function maskUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    return url.toString();
  } catch {
    return value;
  }
}

/**
 * The secrets operations and what the rest of the service needs of them (credentials, per-organization models), over
 * the service's (traced) storage: each a module-level function of the {@link SecretsContext}.
 */
export function secretOperations(ctx: SecretsContext) {
  return {
    externalApiKeys: bindContext(ctx, {
      create: createExternalApiKey,
      get: getExternalApiKey,
      list: listExternalApiKeys,
      delete: deleteExternalApiKey,
    }),
    customEndpoint: bindContext(ctx, { set: setCustomEndpoint, get: getCustomEndpoint, delete: deleteCustomEndpoint }),
    ...bindContext(ctx, { credentialsFor, modelsFor, check, reencrypt }),
  };
}

const describe = (provider: Provider, record: SecretRecord | undefined): ExternalApiKey => ({
  provider,
  is_configured: record !== undefined,
  last_updated: record?.last_updated ?? null,
});

async function createExternalApiKey(ctx: SecretsContext, organizationId: string, raw: CreateExternalApiKeyInput): Promise<ExternalApiKey> {
  const input = parseInput(createExternalApiKeyInputSchema, raw);
  requireCipher(ctx);
  const at = await write(ctx, organizationId, input.provider, { api_key: input.api_key });
  return { provider: input.provider, is_configured: true, last_updated: at };
}

async function getExternalApiKey(ctx: SecretsContext, organizationId: string, raw: ExternalApiKeyRefInput): Promise<ExternalApiKey> {
  const input = parseInput(externalApiKeyRefInputSchema, raw);
  requireCipher(ctx);
  const found = await collection(ctx.storage).get(SECRETS_SCOPE, recordId(organizationId, input.provider));
  return describe(input.provider, found?.value);
}

async function listExternalApiKeys(ctx: SecretsContext, organizationId: string): Promise<ExternalApiKey[]> {
  requireCipher(ctx);
  const found = await configured(ctx, organizationId);
  return PROVIDERS.map((p) => describe(p, found.get(p)));
}

async function deleteExternalApiKey(ctx: SecretsContext, organizationId: string, raw: ExternalApiKeyRefInput): Promise<ExternalApiKeyDeleted> {
  const input = parseInput(externalApiKeyRefInputSchema, raw);
  requireCipher(ctx);
  const deleted = await collection(ctx.storage).delete(SECRETS_SCOPE, recordId(organizationId, input.provider));
  return { provider: input.provider, deleted, success: true };
}

async function setCustomEndpoint(ctx: SecretsContext, organizationId: string, raw: SetCustomEndpointInput): Promise<CustomEndpoint> {
  const input = parseInput(setCustomEndpointInputSchema, raw);
  requireCipher(ctx);
  const models = [...new Set(input.models)];
  const payload: SecretPayload = { base_url: input.base_url, models, ...(input.api_key ? { api_key: input.api_key } : {}) };
  const at = await write(ctx, organizationId, CUSTOM_PROVIDER, payload);
  return { is_configured: true, base_url: maskUrl(input.base_url), models, has_api_key: input.api_key !== undefined, last_updated: at };
}

async function getCustomEndpoint(ctx: SecretsContext, organizationId: string): Promise<CustomEndpoint> {
  requireCipher(ctx);
  const found = await open(ctx, organizationId, CUSTOM_PROVIDER);
  if (!found) return { is_configured: false, base_url: null, models: [], has_api_key: false, last_updated: null };
  const { payload, record } = found;
  return {
    is_configured: true,
    base_url: maskUrl(payload.base_url ?? ''),
    models: payload.models ?? [],
    has_api_key: payload.api_key !== undefined,
    last_updated: record.last_updated,
  };
}

async function deleteCustomEndpoint(ctx: SecretsContext, organizationId: string): Promise<{ deleted: boolean; success: true }> {
  requireCipher(ctx);
  return { deleted: await collection(ctx.storage).delete(SECRETS_SCOPE, recordId(organizationId, CUSTOM_PROVIDER)), success: true };
}

function requireCipher(ctx: SecretsContext): SecretCipher {
  if (!ctx.cipher) throw new DocevalsError('not_configured', NO_MASTER_KEY_MESSAGE);
  return ctx.cipher;
}

async function seal(ctx: SecretsContext, organizationId: string, name: string, payload: SecretPayload, lastUpdated: string, existing: number | null) {
  const cipher = requireCipher(ctx);
  const record: SecretRecord = {
    id: recordId(organizationId, name),
    organization_id: SECRETS_SCOPE,
    secret_organization_id: organizationId,
    name,
    sealed: await cipher.encrypt(JSON.stringify(payload), context(organizationId, name)),
    key_id: cipher.keyId,
    last_updated: lastUpdated,
    updated_at: ctx.now(),
  };
  return existing === null ? collection(ctx.storage).insert(record).then(() => true) : collection(ctx.storage).replace(record, existing).then((r) => r !== null);
}

/** Writes the secret whatever is there (insert or replace), retrying when another write raced it. */
async function write(ctx: SecretsContext, organizationId: string, name: string, payload: SecretPayload): Promise<string> {
  const at = ctx.now();
  const id = recordId(organizationId, name);
  return retryCompareAndSet(id, async () => {
    const found = await collection(ctx.storage).get(SECRETS_SCOPE, id);
    try {
      return (await seal(ctx, organizationId, name, payload, at, found ? found.version : null)) ? at : undefined;
    } catch (error) {
      if (error instanceof DocevalsError && error.code === 'conflict') return undefined; // inserted meanwhile
      throw error;
    }
  });
}

/** The opened secret, or null; a secret sealed under the previous master key is re-sealed under the current one. */
async function open(ctx: SecretsContext, organizationId: string, name: string): Promise<{ payload: SecretPayload; record: SecretRecord } | null> {
  const found = await collection(ctx.storage).get(SECRETS_SCOPE, recordId(organizationId, name));
  if (!found) return null;
  const cipher = requireCipher(ctx);
  const { plaintext, stale } = await cipher.decrypt(found.value.sealed, context(organizationId, name));
  const payload = JSON.parse(plaintext) as SecretPayload;
  if (stale) await seal(ctx, organizationId, name, payload, found.value.last_updated, found.version).catch(() => false);
  return { payload, record: found.value };
}

async function configured(ctx: SecretsContext, organizationId: string): Promise<Map<string, SecretRecord>> {
  const names = [...PROVIDERS, CUSTOM_PROVIDER];
  const found = await collection(ctx.storage).getMany(SECRETS_SCOPE, names.map((n) => recordId(organizationId, n)));
  const out = new Map<string, SecretRecord>();
  found.forEach((f, i) => f && out.set(names[i]!, f.value));
  return out;
}

/**
 * The key `model` runs with for the organization: its own key for the model's provider, else nothing when the
 * host's key serves (or the model needs none); a 422 at `path` naming the provider and how to add a key otherwise.
 */
async function credentialsFor(ctx: SecretsContext, organizationId: string, model: string, path: string): Promise<ProviderCredentials | undefined> {
  const need = findExtractor(ctx.extractors, model)?.credentials?.(model) ?? null;
  if (!need) return undefined;
  if (ctx.cipher) {
    const found = await open(ctx, organizationId, need.provider);
    if (found) {
      const { payload } = found;
      return {
        provider: need.provider,
        ...(payload.api_key !== undefined ? { api_key: payload.api_key } : {}),
        ...(payload.base_url !== undefined ? { base_url: payload.base_url } : {}),
      };
    }
  }
  if (need.host) return undefined;
  const message =
    need.provider === CUSTOM_PROVIDER
      ? `The model "${model}" runs on this organization's custom endpoint, and none is configured. Add one: ` +
        'PUT /v1/secrets/custom_endpoint {"base_url": "...", "api_key": "...", "models": [...]}, or the web app\'s Settings.'
      : `The model "${model}" runs on ${need.provider}, and neither this organization nor this server has a ` +
        `${need.provider} key. Add one: POST /v1/secrets/external_api_keys {"provider": "${need.provider}", ` +
        `"api_key": "..."}, the web app's Settings, or \`docevals secrets set ${need.provider}\`` +
        (ctx.cipher ? '.' : ` (this server has no master key for organization keys: its host can set ${envOf(need.provider)}).`);
  throw validationError(message, [{ path, message }]);
}

/**
 * GET /v1/models for one organization: the host's models that need no key, then, for each provider this
 * organization can run now (its own key or the host's), the provider's current models and name patterns, then its
 * custom endpoint's models as `custom/<name>`. `provider` says which provider serves each.
 */
async function modelsFor(ctx: SecretsContext, organizationId: string): Promise<ModelList> {
  const all = listModels(ctx.extractors);
  const stored = ctx.cipher ? await configured(ctx, organizationId) : new Map<string, SecretRecord>();
  const data: Model[] = [];
  const seen = new Set<string>();
  const push = (model: Model) => {
    if (seen.has(model.id)) return;
    seen.add(model.id);
    data.push(model);
  };
  for (const entry of all.data) {
    const extractor = ctx.extractors.find((e) => e.name === entry.extractor);
    if (!extractor?.credentials) {
      push({ ...entry, provider: null });
      continue;
    }
    const need = extractor.credentials(sampleModel(entry.id));
    const provider = need?.provider ?? null;
    if (provider === null) {
      push({ ...entry, provider: null });
      continue;
    }
    if (!(need!.host || stored.has(provider))) continue;
    if (provider === CUSTOM_PROVIDER) {
      const custom = await open(ctx, organizationId, CUSTOM_PROVIDER);
      for (const name of custom?.payload.models ?? []) {
        push({ id: `${CUSTOM_MODEL_PREFIX}${name}`, extractor: entry.extractor, pattern: false, modalities: entry.modalities, provider });
      }
      continue;
    }
    const info = (PROVIDER_INFO as Record<string, (typeof PROVIDER_INFO)[Provider] | undefined>)[provider];
    for (const name of info?.listed ?? []) {
      if (findExtractor(ctx.extractors, name) !== extractor) continue;
      const modalities = typeof extractor.modalities === 'function' ? extractor.modalities(name) : extractor.modalities;
      push({ id: name, extractor: entry.extractor, pattern: false, modalities: modalities ? [...modalities] : null, provider });
    }
    push({ ...entry, provider });
  }
  return { data };
}

/**
 * Checks the master key against the store (a sealed check record, written on first use): a wrong key is a clear
 * `not_configured` error naming the key id the store needs, so a host stops at start instead of failing later.
 * When the store was sealed under the previous key, re-encrypts every secret under the current one.
 */
async function check(ctx: SecretsContext): Promise<{ key_id: string; reencrypted: number }> {
  const cipher = requireCipher(ctx);
  const found = await collection(ctx.storage).get(SECRETS_SCOPE, CHECK_ID);
  if (!found) {
    const record: SecretRecord = {
      id: CHECK_ID,
      organization_id: SECRETS_SCOPE,
      secret_organization_id: '',
      name: CHECK_ID,
      sealed: await cipher.encrypt(CHECK_TEXT, CHECK_ID),
      key_id: cipher.keyId,
      last_updated: ctx.now(),
      updated_at: ctx.now(),
    };
    await collection(ctx.storage).insert(record).catch((error: unknown) => {
      if (!(error instanceof DocevalsError && error.code === 'conflict')) throw error;
    });
    return { key_id: cipher.keyId, reencrypted: 0 };
  }
  const { stale } = await cipher.decrypt(found.value.sealed, CHECK_ID);
  return { key_id: cipher.keyId, reencrypted: stale ? await reencrypt(ctx) : 0 };
}

/**
 * Re-seals every secret (every organization's) that is not under the current master key; returns how many. The
 * check record goes last: `check()` re-encrypts only while it reads stale, so a rotation cut short (a failed write)
 * is finished at the next start instead of leaving the rest under the old key.
 */
async function reencrypt(ctx: SecretsContext): Promise<number> {
  requireCipher(ctx); // not configured: the clear error, even on an empty store
  let count = 0;
  let checkRecord: SecretRecord | undefined;
  let after: string | undefined;
  for (;;) {
    const page = await collection(ctx.storage).list(SECRETS_SCOPE, { limit: 100, order: 'asc', ...(after ? { after } : {}) });
    if (!page || page.items.length === 0) break;
    for (const item of page.items) {
      if (item.id === CHECK_ID) checkRecord = item;
      else if (await reseal(ctx, item, context(item.secret_organization_id, item.name))) count++;
    }
    if (!page.has_more) break;
    after = page.items[page.items.length - 1]!.id;
  }
  if (checkRecord && (await reseal(ctx, checkRecord, CHECK_ID))) count++;
  return count;
}

/** Re-seals one record under the current key unless it is already there or was rewritten meanwhile. */
async function reseal(ctx: SecretsContext, item: SecretRecord, ctxText: string): Promise<boolean> {
  const cipher = requireCipher(ctx);
  if (item.key_id === cipher.keyId) return false;
  const { plaintext } = await cipher.decrypt(item.sealed, ctxText);
  const current = await collection(ctx.storage).get(SECRETS_SCOPE, item.id);
  if (!current || current.value.sealed !== item.sealed) return false; // rewritten meanwhile: already current
  const replaced = await collection(ctx.storage).replace(
    // updated_at kept: the page order (by updated_at) must not move under the cursor.
    { ...item, sealed: await cipher.encrypt(plaintext, ctxText), key_id: cipher.keyId },
    current.version,
  );
  return replaced !== null;
}

/** A model name a `models` entry stands for: itself, or a name its pattern matches (a provider's, custom's). */
function sampleModel(id: string): string {
  if (id === `${CUSTOM_MODEL_PREFIX}*`) return `${CUSTOM_MODEL_PREFIX}model`;
  for (const provider of PROVIDERS) {
    const info = PROVIDER_INFO[provider];
    if (info.models.some((pattern) => describeModelPattern(pattern) === id)) return info.listed[0]!;
  }
  return id;
}

function envOf(provider: string): string {
  return (PROVIDER_INFO as Record<string, { env: string } | undefined>)[provider]?.env ?? 'its provider key variable';
}

export type SecretOperations = ReturnType<typeof secretOperations>;
