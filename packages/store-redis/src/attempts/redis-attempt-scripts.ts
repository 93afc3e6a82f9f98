import { KEEP_AT_LEAST_LUA } from '../keys/expiry-ttl.js';
import { LuaScript } from '../lua/lua-script.js';
import { REMEMBER_LUA } from '../lua/remembered-set-lua.js';

// The attempt scripts. Every script's keys are one shard's (../keys/key-space.ts: one hash tag, so one slot on a cluster): a client
// key's record at <shard>record:<client key> (JSON, TTL) and its place in <shard>counting (failures, capped) or <shard>banned
// (running bans, never capped), scores = when the record expires. Expiry is always judged by ARGV's clock time.
const LIVE_RECORD = `
local function live_expiry(counting, banned, member, now)
  local expiry = redis.call('ZSCORE', banned, member)
  if not expiry or tonumber(expiry) <= now then expiry = redis.call('ZSCORE', counting, member) end
  if not expiry or tonumber(expiry) <= now then return nil end
  return expiry
end
local function live_record(key, counting, banned, member, now)
  if not live_expiry(counting, banned, member, now) then return nil end
  local stored = redis.call('GET', key)
  if not stored then return nil end
  return cjson.decode(stored)
end
`;

// KEYS: record, counting, banned. ARGV: client key, at, has cookie (1/0), cookie, windowStart, threshold, banUntil, keepUntil,
// ban TTL, keep TTL, the shard's share of maxAttemptKeys, clock now. tallyFailure's arithmetic, step for step; a ban moves the
// key from counting to banned, where no cap reaches it. A new key finding counting full (once the expired are gone) is not
// kept: {'full'}, and a ban is never evicted to make room.
export const COUNT_FAILURE = new LuaScript(`${LIVE_RECORD}${KEEP_AT_LEAST_LUA}
local key, counting, banned, member = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local at, has_cookie, cookie, now = tonumber(ARGV[2]), ARGV[3] == '1', ARGV[4], ARGV[12]
local record = live_record(key, counting, banned, member, at)
if record and record.bannedUntil and record.bannedUntil > at then
  return {'already_banned', record.bannedUntil}
end
local window_start = tonumber(ARGV[5])
local failures = {}
if record and type(record.failures) == 'table' then
  for _, failure in ipairs(record.failures) do
    if failure.at > window_start then failures[#failures + 1] = failure end
  end
end
if has_cookie then
  for _, failure in ipairs(failures) do
    if failure.cookie == cookie then return {'repeated', #failures} end
  end
  failures[#failures + 1] = {at = at, cookie = cookie}
else
  failures[#failures + 1] = {at = at}
end
if #failures >= tonumber(ARGV[6]) then
  -- No failures field: cjson writes an empty table as {}, and the reader takes a missing list as empty.
  local until_ = tonumber(ARGV[7])
  redis.call('SET', key, cjson.encode({bannedUntil = until_, lastFailureAt = at}), 'PX', ARGV[9])
  redis.call('ZREM', counting, member)
  redis.call('ZREMRANGEBYSCORE', banned, '-inf', now)
  redis.call('ZADD', banned, until_, member)
  keep_at_least(banned, ARGV[9])
  return {'banned', until_}
end
local held = redis.call('ZSCORE', counting, member)
if (not held or tonumber(held) <= tonumber(now)) and redis.call('ZCARD', counting) >= tonumber(ARGV[11]) then
  redis.call('ZREMRANGEBYSCORE', counting, '-inf', now)
  if redis.call('ZCARD', counting) >= tonumber(ARGV[11]) then return {'full', 0} end
end
redis.call('SET', key, cjson.encode({failures = failures, lastFailureAt = at}), 'PX', ARGV[10])
redis.call('ZREM', banned, member)
redis.call('ZADD', counting, ARGV[8], member)
keep_at_least(counting, ARGV[10])
return {'counted', #failures}
`);

// KEYS: record, counting, banned, logins. ARGV: client key, now, remember (1/0), until, the shard's share of maxRecentSuccesses,
// TTL, clock now. Remembers the login when asked, then deletes the failures unless a ban runs at now. A key in neither index
// has nothing to delete (its record, if one is left, has ended: every read goes through the indexes), so the usual login, a
// client with no failure, costs its two ZSCOREs and no write.
export const RECORD_LOGIN = new LuaScript(`
${REMEMBER_LUA}
if ARGV[3] == '1' then remember(KEYS[4], ARGV[1], ARGV[4], ARGV[7], ARGV[5], ARGV[6]) end
local now = tonumber(ARGV[2])
local banned_until = redis.call('ZSCORE', KEYS[3], ARGV[1])
local counted_until = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not banned_until and not counted_until then return 1 end
if (banned_until and tonumber(banned_until) > now) or (counted_until and tonumber(counted_until) > now) then
  local stored = redis.call('GET', KEYS[1])
  if stored then
    local record = cjson.decode(stored)
    if record.bannedUntil and record.bannedUntil > now then return 0 end
  end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`);

// KEYS: record, counting, banned, logins. ARGV: client key, now, the shard's share of maxAttemptKeys. Replies {stored JSON or
// nil, until when a login is remembered else 0, when the full counts make room else 0}: the admission read. Writes nothing.
export const READ_CLIENT = new LuaScript(`${LIVE_RECORD}
local now = tonumber(ARGV[2])
local stored = false
local full_until = 0
if live_expiry(KEYS[2], KEYS[3], ARGV[1], now) then
  stored = redis.call('GET', KEYS[1])
elseif redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) and redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[2], '+inf') >= tonumber(ARGV[3]) then
  full_until = tonumber(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[2], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2])
end
local login = redis.call('ZSCORE', KEYS[4], ARGV[1])
return {stored, (login and tonumber(login) > now) and tonumber(login) or 0, full_until}
`);

// KEYS: record, counting, banned. ARGV: client key, now.
export const READ_ATTEMPTS = new LuaScript(`${LIVE_RECORD}
if not live_expiry(KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[2])) then return false end
return redis.call('GET', KEYS[1])
`);

// KEYS: record, counting, banned. ARGV: client key.
export const DELETE_ATTEMPTS = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`);

// KEYS: counting, banned (one shard). ARGV: now, the shard's record prefix (its keys share the shard's tag, so its slot).
// Replies client key, JSON, client key, JSON, …
export const LIST_ATTEMPTS = new LuaScript(`
local listed = {}
for _, index in ipairs({KEYS[1], KEYS[2]}) do
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', index, '(' .. ARGV[1], '+inf')) do
    local stored = redis.call('GET', ARGV[2] .. member)
    if stored then
      listed[#listed + 1] = member
      listed[#listed + 1] = stored
    end
  end
end
return listed
`);
