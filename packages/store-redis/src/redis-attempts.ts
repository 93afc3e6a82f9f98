import type { AttemptEntry, AttemptRecord, Clock, FailureTally, FailureToCount } from '@webui/core';
import { expiryTtl, KEEP_AT_LEAST_LUA } from './expiry-ttl.js';
import type { KeySpace } from './key-space.js';
import { LuaScript } from './lua-script.js';
import type { StoreConnection } from './store-connection.js';

// Every attempt record lives at <prefix>attempt:<client key> (JSON, with a TTL) and in the index <prefix>attempts
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
const COUNT_FAILURE = new LuaScript(`${LIVE_RECORD}${KEEP_AT_LEAST_LUA}
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

// KEYS: record, index. ARGV: client key, now. Deletes unless a ban runs at now.
const CLEAR_FAILURES = new LuaScript(`${LIVE_RECORD}
local now = tonumber(ARGV[2])
local record = live_record(KEYS[1], KEYS[2], ARGV[1], now)
if record and record.bannedUntil and record.bannedUntil > now then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

// KEYS: record, index. ARGV: client key, now.
const READ_ATTEMPTS = new LuaScript(`
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not expiry or tonumber(expiry) <= tonumber(ARGV[2]) then return false end
return redis.call('GET', KEYS[1])
`);

// KEYS: record, index. ARGV: client key.
const DELETE_ATTEMPTS = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

// KEYS: index. ARGV: now, key prefix. Replies client key, JSON, client key, JSON, …
const LIST_ATTEMPTS = new LuaScript(`
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

/** Failed verifications and bans per client key, each count one script so instances sharing Redis never lose one. */
export class RedisAttempts {
  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
    private readonly maxAttemptKeys: number,
  ) {}

  async count(key: string, failure: FailureToCount): Promise<FailureTally> {
    const now = this.clock.now();
    const args = [
      key,
      failure.at,
      failure.cookie === undefined ? '0' : '1',
      failure.cookie ?? '',
      failure.windowStart,
      failure.threshold,
      failure.banUntil,
      failure.keepUntil,
      expiryTtl(failure.banUntil, now),
      expiryTtl(failure.keepUntil, now),
      this.maxAttemptKeys,
      now,
      this.keys.attemptPrefix,
    ];
    return decodeTally(await this.connection.run(COUNT_FAILURE, [this.keys.attempt(key), this.keys.attemptIndex], args));
  }

  async clear(key: string, now: number): Promise<void> {
    await this.connection.run(CLEAR_FAILURES, [this.keys.attempt(key), this.keys.attemptIndex], [key, now]);
  }

  async read(key: string): Promise<AttemptRecord | null> {
    const stored = await this.connection.run(READ_ATTEMPTS, [this.keys.attempt(key), this.keys.attemptIndex], [key, this.clock.now()]);
    return typeof stored === 'string' ? decodeAttemptRecord(stored) : null;
  }

  async delete(key: string): Promise<void> {
    await this.connection.run(DELETE_ATTEMPTS, [this.keys.attempt(key), this.keys.attemptIndex], [key]);
  }

  async list(): Promise<AttemptEntry[]> {
    const listed = await this.connection.run(LIST_ATTEMPTS, [this.keys.attemptIndex], [this.clock.now(), this.keys.attemptPrefix]);
    if (!Array.isArray(listed)) throw new Error(`unexpected reply to the attempt listing: ${String(listed)}`);
    const entries: AttemptEntry[] = [];
    for (let i = 0; i + 1 < listed.length; i += 2) entries.push({ key: String(listed[i]), record: decodeAttemptRecord(String(listed[i + 1])) });
    return entries;
  }
}

function decodeTally(reply: unknown): FailureTally {
  if (Array.isArray(reply)) {
    const [kind, value] = reply as unknown[];
    const number = Number(value);
    if (kind === 'already_banned') return { kind, bannedUntil: number };
    if (kind === 'banned') return { kind, bannedUntil: number };
    if (kind === 'repeated') return { kind, failures: number };
    if (kind === 'counted') return { kind, failures: number };
  }
  throw new Error(`unexpected reply to a counted failure: ${JSON.stringify(reply)}`);
}

/** The stored JSON of an attempt record, as the scripts write it. */
function decodeAttemptRecord(text: string): AttemptRecord {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`an attempt record in Redis is not a JSON object: ${text}`);
  const { failures, bannedUntil, lastFailureAt } = value as Record<string, unknown>;
  const record: AttemptRecord = { failures: Array.isArray(failures) ? failures.map(decodeFailure) : [] };
  if (typeof bannedUntil === 'number') record.bannedUntil = bannedUntil;
  if (typeof lastFailureAt === 'number') record.lastFailureAt = lastFailureAt;
  return record;
}

function decodeFailure(value: unknown): { at: number; cookie?: string } {
  const { at, cookie } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof at !== 'number') throw new Error(`a failure in an attempt record in Redis has no time: ${JSON.stringify(value)}`);
  return typeof cookie === 'string' ? { at, cookie } : { at };
}
