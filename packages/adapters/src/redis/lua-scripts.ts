import type { Redis } from 'ioredis';
import { type ChildScripts, defineChildScripts } from './child-scripts.js';

/**
 * The Lua scripts behind every write of the Redis adapter. A script runs atomically on the server, so a
 * compare-and-set or a reference count needs no WATCH/MULTI retry loop and holds across processes and hosts.
 *
 * Scripts touch only the keys passed in KEYS: a client's own `keyPrefix` option is applied to KEYS by ioredis, and
 * keys built inside Lua would miss it.
 */

/*
 * Writes carry a token unique to the call, kept in the record's `w` field. A command that ran but whose reply was
 * lost may be sent again (ioredis resends unanswered commands after a reconnect, by default): the token lets the
 * second run recognise its own write and report success, instead of "taken" or "changed" — which would make the
 * caller apply the same change twice.
 */

/**
 * KEYS: record, index. ARGV: id, score, json, write token, then field/value pairs. Returns 1, or 0 when the id is
 * taken (by another write than this one).
 */
const INSERT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'w') == ARGV[4] and redis.call('HGET', KEYS[1], 'v') == '1' then return 1 end
  return 0
end
local fields = {'v', '1', 'json', ARGV[3], 'w', ARGV[4]}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`;

/**
 * KEYS: record, index. ARGV: id, score, json, expected version, write token, then field/value pairs.
 * Returns the new version, or 0 when the record is gone or its version moved (by another write than this one).
 */
const REPLACE = `
local current = redis.call('HGET', KEYS[1], 'v')
if current and tonumber(current) == tonumber(ARGV[4]) + 1 and redis.call('HGET', KEYS[1], 'w') == ARGV[5] then
  return tonumber(current)
end
if not current or tonumber(current) ~= tonumber(ARGV[4]) then return 0 end
local version = tonumber(current) + 1
-- Rewritten whole so that a string field the new record no longer has does not linger for where filters.
redis.call('DEL', KEYS[1])
local fields = {'v', tostring(version), 'json', ARGV[3], 'w', ARGV[5]}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return version
`;

/**
 * KEYS: record, index. ARGV: id, expected version ('' for any). Returns 1, or 0 when there was no record or its
 * version is not the expected one.
 */
const DELETE = `${deleteRecord('')}return 1
`;

/** The part DELETE and DELETE_JOB share: the version check, then the record and its index entry removed; `then` follows. */
function deleteRecord(then: string): string {
  return `
local current = redis.call('HGET', KEYS[1], 'v')
if not current then return 0 end
if ARGV[2] ~= '' and tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
${then}`;
}

/**
 * KEYS: index. ARGV: order ('asc' | 'desc'), cursor id ('' for none), fallback position ('' for none),
 * side ('after' | 'before'), count.
 * Returns {position of the cursor, ids...}: up to `count` ids just after (or just before) the cursor in `order`; the
 * position is -1 without a cursor. When the cursor is not in the set: the fallback position stands in for it (a
 * record seen by an earlier batch that was deleted or moved since), or nil without one (an unknown cursor).
 */
const RANGE = `
local desc = ARGV[1] == 'desc'
local pos = -1
if ARGV[2] ~= '' then
  if desc then pos = redis.call('ZREVRANK', KEYS[1], ARGV[2]) else pos = redis.call('ZRANK', KEYS[1], ARGV[2]) end
  if not pos then
    if ARGV[3] == '' then return false end
    pos = tonumber(ARGV[3])
  end
end
local count = tonumber(ARGV[5])
local first, last
if ARGV[4] == 'after' then
  first = pos + 1
  last = pos + count
else
  first = math.max(0, pos - count)
  last = pos - 1
end
local out = {pos}
if last >= first then
  local ids
  if desc then ids = redis.call('ZREVRANGE', KEYS[1], first, last) else ids = redis.call('ZRANGE', KEYS[1], first, last) end
  for _, id in ipairs(ids) do out[#out + 1] = id end
end
return out
`;

/**
 * KEYS: file. ARGV: has content ('1' | '0'), bytes, mime type, write token, now (ms, kept in `at` for the sweep). Adds one reference, storing the content
 * first when the file is absent and content is given. Returns 1, or 0 when the file is absent and no content came.
 * The token makes a resent call a no-op (the reference counts once), as for records.
 */
const RETAIN = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'w') == ARGV[4] then return 1 end
  redis.call('HINCRBY', KEYS[1], 'refs', 1)
  redis.call('HSET', KEYS[1], 'w', ARGV[4], 'at', ARGV[5] or '0')
  return 1
end
if ARGV[1] ~= '1' then return 0 end
redis.call('HSET', KEYS[1], 'bytes', ARGV[2], 'mime_type', ARGV[3], 'refs', 1, 'w', ARGV[4], 'at', ARGV[5] or '0')
return 1
`;

/**
 * KEYS: file. ARGV: write token. Removes one reference, the file with the last one. Returns 0 when there was no file.
 * A resent release must not remove a second reference: that could delete a file another document still uses.
 */
const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'w') == ARGV[1] then return 1 end
if redis.call('HINCRBY', KEYS[1], 'refs', -1) <= 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'w', ARGV[1])
end
return 1
`;

/**
 * KEYS: job record, jobs index, the organization's job set. ARGV: id, score, json, write token, cap, then
 * field/value pairs. Inserts the job record and adds its id to the organization's set only while that set holds
 * fewer than `cap` ids. Returns 1, 0 when the id is taken (by another write than this one), -1 at the cap.
 * At the cap, ids whose record is gone (deleted by a server of before the set) are dropped first: a record key is
 * the job record key with its id replaced, in the same hash slot.
 */
const INSERT_JOB = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'w') == ARGV[4] and redis.call('HGET', KEYS[1], 'v') == '1' then return 1 end
  return 0
end
local cap = tonumber(ARGV[5])
if redis.call('SCARD', KEYS[3]) >= cap then
  local base = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[1])
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    if redis.call('EXISTS', base .. member) == 0 then redis.call('SREM', KEYS[3], member) end
  end
  if redis.call('SCARD', KEYS[3]) >= cap then return -1 end
end
local fields = {'v', '1', 'json', ARGV[3], 'w', ARGV[4]}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

/** KEYS: job record, jobs index, the organization's job set. ARGV: id, expected version ('' for any). As DELETE. */
const DELETE_JOB = `${deleteRecord("redis.call('SREM', KEYS[3], ARGV[1])\n")}return 1
`;

/** The commands the scripts add to a client. Namespaced, so they cannot shadow a host's own defined commands. */
export interface DocevalsScripts extends ChildScripts {
  docevalsInsert(
    record: string,
    index: string,
    id: string,
    score: number,
    json: string,
    token: string,
    ...fields: string[]
  ): Promise<number>;
  docevalsReplace(
    record: string,
    index: string,
    id: string,
    score: number,
    json: string,
    expected: number,
    token: string,
    ...fields: string[]
  ): Promise<number>;
  docevalsDelete(record: string, index: string, id: string, expected: number | ''): Promise<number>;
  docevalsInsertJob(
    record: string,
    index: string,
    organizationJobs: string,
    id: string,
    score: number,
    json: string,
    token: string,
    cap: number,
    ...fields: string[]
  ): Promise<number>;
  docevalsDeleteJob(record: string, index: string, organizationJobs: string, id: string, expected: number | ''): Promise<number>;
  docevalsRange(
    index: string,
    order: 'asc' | 'desc',
    cursor: string,
    fallback: string,
    side: 'after' | 'before',
    count: number,
  ): Promise<Array<number | string> | null>;
  docevalsRetain(file: string, hasContent: '1' | '0', bytes: Buffer | string, mimeType: string, token: string, now?: string): Promise<number>;
  docevalsRelease(file: string, token: string): Promise<number>;
}

/**
 * Defines the scripts on `client` with ioredis `defineCommand`, which sends EVALSHA and falls back to EVAL once per
 * connection when the server does not know the script yet (after a restart or SCRIPT FLUSH). Defining them again on
 * the same client (two stores sharing a host's client) is harmless: same names, same code.
 */
export function defineScripts(client: Redis): Redis & DocevalsScripts {
  client.defineCommand('docevalsInsert', { numberOfKeys: 2, lua: INSERT });
  client.defineCommand('docevalsReplace', { numberOfKeys: 2, lua: REPLACE });
  client.defineCommand('docevalsDelete', { numberOfKeys: 2, lua: DELETE });
  client.defineCommand('docevalsInsertJob', { numberOfKeys: 3, lua: INSERT_JOB });
  client.defineCommand('docevalsDeleteJob', { numberOfKeys: 3, lua: DELETE_JOB });
  client.defineCommand('docevalsRange', { numberOfKeys: 1, lua: RANGE, readOnly: true });
  client.defineCommand('docevalsRetain', { numberOfKeys: 1, lua: RETAIN });
  client.defineCommand('docevalsRelease', { numberOfKeys: 1, lua: RELEASE });
  defineChildScripts(client);
  return client as Redis & DocevalsScripts;
}
