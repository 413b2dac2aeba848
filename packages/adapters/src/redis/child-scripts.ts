import type { Redis } from 'ioredis';

/**
 * Lua scripts of the child collections and of the file batches (see lua-scripts.ts for why scripts, and for the
 * write tokens that make a resent command count once). A child's totals are kept in its parent's totals hash by the
 * same script that writes the child: the old record's numbers are subtracted and the new one's added
 * (HINCRBYFLOAT), so the sums are exact after every write, whoever writes.
 */

/** Subtracts the totals a child stored in `t` (JSON `[key, "value", ...]`) from the totals hash. */
const SUBTRACT = `
local function subtract(totals, encoded)
  if not encoded then return end
  local t = cjson.decode(encoded)
  for i = 1, #t, 2 do
    local v = t[i + 1]
    if string.sub(v, 1, 1) == '-' then v = string.sub(v, 2) else v = '-' .. v end
    redis.call('HINCRBYFLOAT', totals, 's:' .. t[i], v)
  end
end
`;

/** Adds a child's totals (JSON `[key, "value", ...]`) to the totals hash, in their order. */
const ADD = `
local function add(totals, encoded)
  local t = cjson.decode(encoded)
  for i = 1, #t, 2 do redis.call('HINCRBYFLOAT', totals, 's:' .. t[i], t[i + 1]) end
end
`;

/**
 * KEYS: record, order, totals. ARGV: id, json, expected ('' any, '0' absent only, n that version), token, the
 * totals key/value pairs as one JSON array (`["succeeded","1",...]`, kept as the record's `t`). Returns the new
 * version, or 0 when the compare-and-set refused.
 */
const CHILD_PUT = `${SUBTRACT}${ADD}
local current = redis.call('HGET', KEYS[1], 'v')
if current and redis.call('HGET', KEYS[1], 'w') == ARGV[4] then return tonumber(current) end
local expected = ARGV[3]
if expected == '0' then
  if current then return 0 end
elseif expected ~= '' then
  if not current or tonumber(current) ~= tonumber(expected) then return 0 end
end
local version = 1
if current then
  version = tonumber(current) + 1
  subtract(KEYS[3], redis.call('HGET', KEYS[1], 't'))
else
  local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
  redis.call('ZADD', KEYS[2], seq, ARGV[1])
  redis.call('HINCRBY', KEYS[3], 'count', 1)
end
add(KEYS[3], ARGV[5])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', version, 'json', ARGV[2], 'w', ARGV[4], 't', ARGV[5])
return version
`;

/**
 * KEYS: order, totals, then one record key per child. ARGV: token, n, then n key/sum pairs (the batch's totals summed,
 * added once), then per child: id, json, and its totals pairs as a JSON array (`["succeeded","1",...]`, kept as the
 * record's `t` for a later put or delete to subtract). Three arguments per child: a build of 10,000 predictions sent
 * 31 (fourteen totals pairs each), and building and writing the command was the larger part of the adapter's CPU. All
 * or nothing: returns 1, or -i when the i-th child's id is taken (nothing written).
 */
export const CHILD_INSERT_MANY = `
if #KEYS > 2 and redis.call('HGET', KEYS[3], 'w') == ARGV[1] and redis.call('HGET', KEYS[3], 'v') == '1' then return 1 end
local SLICE = 500
for first = 3, #KEYS, SLICE do
  local last = math.min(first + SLICE - 1, #KEYS)
  if redis.call('EXISTS', unpack(KEYS, first, last)) > 0 then
    for i = first, last do
      if redis.call('EXISTS', KEYS[i]) == 1 then return -(i - 2) end
    end
  end
end
local sums = tonumber(ARGV[2])
local a = 3 + 2 * sums
local seq = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
local order = {}
for i = 3, #KEYS do
  redis.call('HSET', KEYS[i], 'v', 1, 'json', ARGV[a + 1], 'w', ARGV[1], 't', ARGV[a + 2])
  seq = seq + 1
  order[#order + 1] = seq
  order[#order + 1] = ARGV[a]
  if #order >= 2 * SLICE or i == #KEYS then
    redis.call('ZADD', KEYS[1], unpack(order))
    order = {}
  end
  a = a + 3
end
for j = 0, sums - 1 do
  redis.call('HINCRBYFLOAT', KEYS[2], 's:' .. ARGV[3 + 2 * j], string.format('%.17g', tonumber(ARGV[4 + 2 * j])))
end
redis.call('HSET', KEYS[2], 'seq', seq)
redis.call('HINCRBY', KEYS[2], 'count', #KEYS - 2)
return 1
`;

/**
 * KEYS: order, totals, then one record key per child. ARGV: token, then per child: id, json, expected ('' any, '0'
 * absent only, n that version), its totals pairs as one JSON array (kept as its `t`: four arguments per child where
 * a prediction's fourteen totals pairs made 32). All or nothing: every version is checked first;
 * returns {1, version...} when written, or {0, i...} with the (1-based) children whose version did not match,
 * nothing written. A resent batch finds its token on its first child and answers the versions it wrote.
 */
const CHILD_PUT_MANY = `${SUBTRACT}${ADD}
local n = #KEYS - 2
if n > 0 and redis.call('HGET', KEYS[3], 'w') == ARGV[1] then
  local out = {1}
  for i = 3, #KEYS do out[#out + 1] = tonumber(redis.call('HGET', KEYS[i], 'v')) end
  return out
end
local conflicts = {0}
for i = 3, #KEYS do
  local a = 4 * (i - 3) + 2
  local expected = ARGV[a + 2]
  local current = redis.call('HGET', KEYS[i], 'v')
  if expected == '0' then
    if current then conflicts[#conflicts + 1] = i - 2 end
  elseif expected ~= '' then
    if not current or tonumber(current) ~= tonumber(expected) then conflicts[#conflicts + 1] = i - 2 end
  end
end
if #conflicts > 1 then return conflicts end
local out = {1}
for i = 3, #KEYS do
  local s = 4 * (i - 3) + 2
  local id, json, t = ARGV[s], ARGV[s + 1], ARGV[s + 3]
  local current = redis.call('HGET', KEYS[i], 'v')
  local version = 1
  if current then
    version = tonumber(current) + 1
    subtract(KEYS[2], redis.call('HGET', KEYS[i], 't'))
  else
    local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
    redis.call('ZADD', KEYS[1], seq, id)
    redis.call('HINCRBY', KEYS[2], 'count', 1)
  end
  add(KEYS[2], t)
  redis.call('DEL', KEYS[i])
  redis.call('HSET', KEYS[i], 'v', version, 'json', json, 'w', ARGV[1], 't', t)
  out[#out + 1] = version
end
return out
`;

/**
 * KEYS: record, order, totals. ARGV: id, expected version ('' for any). Returns 1, or 0 when there was no child or
 * its version moved. The parent's totals go with its last child.
 */
const CHILD_DELETE = `${SUBTRACT}
local current = redis.call('HGET', KEYS[1], 'v')
if not current then return 0 end
if ARGV[2] ~= '' and tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
subtract(KEYS[3], redis.call('HGET', KEYS[1], 't'))
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HINCRBY', KEYS[3], 'count', -1) <= 0 then redis.call('DEL', KEYS[3]) end
return 1
`;

/**
 * KEYS: order, totals, then the record key of every child the caller read from the order. ARGV: their ids.
 * Deletes them all, the order and the totals, if the order still holds exactly those ids; returns how many, or -1
 * when a child came or went meanwhile (the caller reads again).
 */
const CHILD_DELETE_ALL = `
if redis.call('ZCARD', KEYS[1]) ~= #ARGV then return -1 end
for i = 1, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return -1 end
end
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('DEL', KEYS[1], KEYS[2])
return #ARGV
`;

/**
 * KEYS: batch marker, then one file key per entry. ARGV: token, now (ms), then per entry: has content ('1'|'0'),
 * bytes, mime type. Returns the answers as a string of '1'/'0'; a resent batch finds its marker and answers the
 * same without counting again.
 */
const RETAIN_MANY = `
local done = redis.call('GET', KEYS[1])
if done then return done end
local out = {}
for i = 2, #KEYS do
  local a = 3 + (i - 2) * 3
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('HINCRBY', KEYS[i], 'refs', 1)
    redis.call('HSET', KEYS[i], 'at', ARGV[2])
    out[#out + 1] = '1'
  elseif ARGV[a] == '1' then
    redis.call('HSET', KEYS[i], 'bytes', ARGV[a + 1], 'mime_type', ARGV[a + 2], 'refs', 1, 'at', ARGV[2])
    out[#out + 1] = '1'
  else
    out[#out + 1] = '0'
  end
end
local answer = table.concat(out)
redis.call('SET', KEYS[1], answer, 'EX', 3600)
return answer
`;

/** KEYS: batch marker, then one file key per release. Removes one reference each, the file with its last one. */
const RELEASE_MANY = `
if redis.call('GET', KEYS[1]) then return 1 end
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HINCRBY', KEYS[i], 'refs', -1) <= 0 then
    redis.call('DEL', KEYS[i])
  end
end
redis.call('SET', KEYS[1], '1', 'EX', 3600)
return 1
`;

/**
 * KEYS: file. ARGV: expected refs, expected at, new refs. Sets the count (the sweep's correction) if neither moved
 * since the sweep read them; at 0 the file goes. Returns 1, or 0 when it moved.
 */
const FIX_REFS = `
local refs, at = redis.call('HGET', KEYS[1], 'refs'), redis.call('HGET', KEYS[1], 'at')
if refs ~= ARGV[1] or (at or '') ~= ARGV[2] then return 0 end
if tonumber(ARGV[3]) <= 0 then redis.call('DEL', KEYS[1]) else redis.call('HSET', KEYS[1], 'refs', ARGV[3]) end
return 1
`;

export interface ChildScripts {
  // The batch scripts take their keys and arguments as one array (ioredis flattens it): a 10,000-record batch has
  // more arguments than a JavaScript call may spread.
  docevalsChildPut(record: string, order: string, totals: string, id: string, json: string, expected: string, token: string, totalsJson: string): Promise<number>;
  docevalsChildInsertMany(numberOfKeys: number, keysAndArgs: string[]): Promise<number>;
  docevalsChildPutMany(numberOfKeys: number, keysAndArgs: string[]): Promise<number[]>;
  docevalsChildDelete(record: string, order: string, totals: string, id: string, expected: string): Promise<number>;
  docevalsChildDeleteAll(numberOfKeys: number, keysAndArgs: string[]): Promise<number>;
  docevalsRetainMany(numberOfKeys: number, keysAndArgs: Array<string | Buffer>): Promise<string>;
  docevalsReleaseMany(numberOfKeys: number, keysAndArgs: string[]): Promise<number>;
  docevalsFixRefs(file: string, refs: string, at: string, next: string): Promise<number>;
}

/** Adds the scripts to `client` (see defineScripts in lua-scripts.ts). Scripts with a variable number of keys take it first. */
export function defineChildScripts(client: Redis): void {
  client.defineCommand('docevalsChildPut', { numberOfKeys: 3, lua: CHILD_PUT });
  client.defineCommand('docevalsChildInsertMany', { lua: CHILD_INSERT_MANY });
  client.defineCommand('docevalsChildPutMany', { lua: CHILD_PUT_MANY });
  client.defineCommand('docevalsChildDelete', { numberOfKeys: 3, lua: CHILD_DELETE });
  client.defineCommand('docevalsChildDeleteAll', { lua: CHILD_DELETE_ALL });
  client.defineCommand('docevalsRetainMany', { lua: RETAIN_MANY });
  client.defineCommand('docevalsReleaseMany', { lua: RELEASE_MANY });
  client.defineCommand('docevalsFixRefs', { numberOfKeys: 1, lua: FIX_REFS });
}
