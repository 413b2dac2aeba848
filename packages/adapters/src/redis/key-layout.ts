/**
 * Where the Redis adapter keeps what. Every key of one organization starts with `{prefix}{<org>}:`, where `<org>` is
 * the organization id with every character outside `A-Z a-z 0-9 _ . ~ -` written as `%` plus four hex digits
 * (its UTF-16 code unit), so `org_1` stays `org_1` and `a:b` becomes `a%003ab`:
 *
 * | key | type | holds |
 * |---|---|---|
 * | `{prefix}{<org>}:eval:<id>` | hash | `v` (version), `json` (the record), `s:<field>` (each top-level string field) |
 * | `{prefix}{<org>}:evals` | sorted set | member = id, score = `updated_at` in ms |
 * | `{prefix}{<org>}:iteration:<id>`, `{prefix}{<org>}:iterations` | as above | iterations |
 * | `{prefix}{<org>}:processor:<id>`, `{prefix}{<org>}:processors` | as above | processors |
 * | `{prefix}{<org>}:file:<file_id>` | hash | `bytes` (raw), `mime_type`, `refs` (reference count), `at` (last retain, ms) |
 * | `{prefix}{<org>}:doc:<parent>:<id>` | hash | a document: `v`, `json`, `w`, `t` (its totals, JSON `[key, "value", ...]`) |
 * | `{prefix}{<org>}:docs:<parent>` | sorted set | the evaluation's documents: member = id, score = place in order |
 * | `{prefix}{<org>}:doctotals:<parent>` | hash | `count`, `seq` (last place given), `s:<key>` (sum of each totals key) |
 * | `{prefix}{<org>}:pred:<parent>:<id>`, `preds:<parent>`, `predtotals:<parent>` | as above | predictions of an iteration |
 * | `{prefix}{<org>}:event:<parent>:<id>`, `events:<parent>`, `eventtotals:<parent>` | as above | events of an iteration's jobs |
 * | `{prefix}{docevals-jobs}:job:<id>`, `jobs` | as records | active jobs, for runners (docs/spec/jobs.md) |
 * | `{prefix}{docevals-jobs}:jobsof:<org>` | set | the ids of one organization's job records (what its cap counts) |
 * | `{prefix}{<org>}:batch:<token>` | string | the answer of a file batch, for 1 hour: a resent batch counts once |
 *
 * Why it is shaped so:
 * - Organization ids are arbitrary strings; encoded, they hold no `:`, `{` or `}`, so one organization's keys can
 *   never be read as another's, and the record id (the rest of the key) needs no encoding.
 * - The braces make the encoded organization a Redis Cluster hash tag: every key a Lua script touches lives in one
 *   slot, which keeps the scripts valid on a cluster-compatible proxy.
 * - Equal scores sort by member bytes, so the sorted set's order is exactly (updated_at, id) for ASCII ids.
 * - A child's `<parent>` is escaped like an organization id, so `a:b` + `c` and `a` + `b:c` never share a key.
 */

/** The collections that have a record hash per id and an ordering sorted set per organization. */
export type RecordKind = 'eval' | 'iteration' | 'processor' | 'job';

const INDEX_SUFFIX: Record<RecordKind, string> = { eval: 'evals', iteration: 'iterations', processor: 'processors', job: 'jobs' };

/** The child collections: documents (`doc`) and predictions (`pred`). */
export type ChildKind = 'doc' | 'pred' | 'event';

/** Builds the keys of one store (one `keyPrefix`). */
export interface KeyLayout {
  /** `{prefix}{<org>}:` — what every key of the organization starts with. */
  organization(organizationId: string): string;
  record(kind: RecordKind, organizationId: string, id: string): string;
  index(kind: RecordKind, organizationId: string): string;
  file(organizationId: string, fileId: string): string;
  child(kind: ChildKind, organizationId: string, parentId: string, id: string): string;
  childOrder(kind: ChildKind, organizationId: string, parentId: string): string;
  childTotals(kind: ChildKind, organizationId: string, parentId: string): string;
  batch(organizationId: string, token: string): string;
  /** The set of the job record ids of one organization, beside the job records (their hash slot). */
  organizationJobs(jobsScope: string, organizationId: string): string;
}

/** The hash field that keeps a copy of the top-level string field `name`, so `where` filters read only these. */
export const stringFieldKey = (name: string): string => `s:${name}`;

/**
 * Escapes an organization id for use in a key: every character outside `A-Z a-z 0-9 _ . ~ -` becomes `%` plus four
 * hex digits. Fixed-width escapes keep it injective for any string, lone surrogates included (which
 * `encodeURIComponent` throws on).
 *
 * @example
 * encodeKeySegment('org_1'); // 'org_1'
 * encodeKeySegment('a:b');   // 'a%003ab'
 */
export function encodeKeySegment(value: string): string {
  return value.replace(/[^A-Za-z0-9_.~-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The inverse of {@link encodeKeySegment}. */
export function decodeKeySegment(value: string): string {
  return value.replace(/%([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The keys of a store with this `keyPrefix`, for hosts that inspect, back up or delete one organization's data.
 *
 * @example
 * const keys = keyLayout('docevals:');
 * keys.record('eval', 'org_1', 'eval_abc'); // 'docevals:{org_1}:eval:eval_abc'
 * keys.organization('org_1') + '*';         // the SCAN pattern of everything org_1 has (escape glob characters)
 */
export function keyLayout(prefix: string): KeyLayout {
  const organization = (organizationId: string) => `${prefix}{${encodeKeySegment(organizationId)}}:`;
  return {
    organization,
    record: (kind, organizationId, id) => `${organization(organizationId)}${kind}:${id}`,
    index: (kind, organizationId) => `${organization(organizationId)}${INDEX_SUFFIX[kind]}`,
    file: (organizationId, fileId) => `${organization(organizationId)}file:${fileId}`,
    child: (kind, organizationId, parentId, id) => `${organization(organizationId)}${kind}:${encodeKeySegment(parentId)}:${id}`,
    childOrder: (kind, organizationId, parentId) => `${organization(organizationId)}${kind}s:${encodeKeySegment(parentId)}`,
    childTotals: (kind, organizationId, parentId) => `${organization(organizationId)}${kind}totals:${encodeKeySegment(parentId)}`,
    batch: (organizationId, token) => `${organization(organizationId)}batch:${token}`,
    organizationJobs: (jobsScope, organizationId) => `${organization(jobsScope)}jobsof:${encodeKeySegment(organizationId)}`,
  };
}
