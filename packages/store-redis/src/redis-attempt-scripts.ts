import { KEEP_AT_LEAST_LUA } from './expiry-ttl.js';
import { LuaScript } from './lua-script.js';
import { REMEMBER_LUA } from './remembered-set-lua.js';

// The attempt scripts. Every attempt record lives at <prefix>attempt:<client key> (JSON, with a TTL) and in the index <prefix>attempts
// (sorted set, score = when it expires), which the listing and the cap read; expiry is always judged by ARGV's clock time.
const LIVE_RECORD = `
local function live_record(key, index, member, now)
  local expiry = redis.call('ZSCORE', index, member)
  if not expiry or tonumber(expiry) <= now then return nil end
  local stored = redis.call('GET', key)
  if not stored then return nil end
  return cjson.decode(stored)
end
`;

// KEYS: record, index. ARGV: client key, at, has cookie (1/0), cookie, windowStart, threshold, banUntil, keepUntil,
// ban TTL, keep TTL, maxAttemptKeys, clock now, key prefix. tallyFailure's arithmetic, step for step.
export const COUNT_FAILURE = new LuaScript(`${LIVE_RECORD}${KEEP_AT_LEAST_LUA}
local key, index, member = KEYS[1], KEYS[2], ARGV[1]
local at, has_cookie, cookie = tonumber(ARGV[2]), ARGV[3] == '1', ARGV[4]
local record = live_record(key, index, member, at)
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
local kept, expires_at, ttl, reply
if #failures >= tonumber(ARGV[6]) then
  -- No failures field: cjson writes an empty table as {}, and the reader takes a missing list as empty.
  expires_at, ttl = tonumber(ARGV[7]), ARGV[9]
  kept = cjson.encode({bannedUntil = expires_at, lastFailureAt = at})
  reply = {'banned', expires_at}
else
  expires_at, ttl = tonumber(ARGV[8]), ARGV[10]
  kept = cjson.encode({failures = failures, lastFailureAt = at})
  reply = {'counted', #failures}
end
if not redis.call('ZSCORE', index, member) and redis.call('ZCARD', index) >= tonumber(ARGV[11]) then
  -- Full: the expired go first; with none, the one that would expire soonest.
  local victims = redis.call('ZRANGEBYSCORE', index, '-inf', ARGV[12], 'LIMIT', 0, 1000)
  if #victims == 0 then victims = redis.call('ZRANGE', index, 0, 0) end
  for _, victim in ipairs(victims) do
    redis.call('DEL', ARGV[13] .. victim)
    redis.call('ZREM', index, victim)
  end
end
redis.call('SET', key, kept, 'PX', ttl)
redis.call('ZADD', index, expires_at, member)
keep_at_least(index, ttl)
return reply
`);

// KEYS: record, index, recent logins. ARGV: client key, now, remember (1/0), until, cap, TTL, clock now.
// Remembers the login when asked, then deletes the failures unless a ban runs at now.
export const RECORD_LOGIN = new LuaScript(`${LIVE_RECORD}${REMEMBER_LUA}
if ARGV[3] == '1' then remember(KEYS[3], ARGV[1], ARGV[4], ARGV[7], ARGV[5], ARGV[6]) end
local now = tonumber(ARGV[2])
local record = live_record(KEYS[1], KEYS[2], ARGV[1], now)
if record and record.bannedUntil and record.bannedUntil > now then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

// KEYS: record, index, recent logins. ARGV: client key, now. Replies {stored JSON or nil, until when a login is remembered, else 0}:
// the admission read.
export const READ_CLIENT = new LuaScript(`
local now = tonumber(ARGV[2])
local stored = false
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if expiry and tonumber(expiry) > now then stored = redis.call('GET', KEYS[1]) end
local login = redis.call('ZSCORE', KEYS[3], ARGV[1])
return {stored, (login and tonumber(login) > now) and tonumber(login) or 0}
`);

// KEYS: record, index. ARGV: client key, now.
export const READ_ATTEMPTS = new LuaScript(`
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not expiry or tonumber(expiry) <= tonumber(ARGV[2]) then return false end
return redis.call('GET', KEYS[1])
`);

// KEYS: record, index. ARGV: client key.
export const DELETE_ATTEMPTS = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

// KEYS: index. ARGV: now, key prefix. Replies client key, JSON, client key, JSON, …
export const LIST_ATTEMPTS = new LuaScript(`
local listed = {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')) do
  local stored = redis.call('GET', ARGV[2] .. member)
  if stored then
    listed[#listed + 1] = member
    listed[#listed + 1] = stored
  end
end
return listed
`);
