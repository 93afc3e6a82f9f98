import type { Clock } from '@webui/core';
import { expiryTtl, KEEP_AT_LEAST_LUA } from './expiry-ttl.js';
import type { KeySpace } from './key-space.js';
import { LuaScript } from '../lua/lua-script.js';
import type { StoreConnection } from '../connection/store-connection.js';

// Held while one instance carries the old layout over, so two starting together do not both add the budget's counts.
const LOCK_MS = 60_000;

// KEYS: record, counting, banned (the client key's shard). ARGV: client key, JSON, expiresAt, banned (1/0), TTL, now.
// Writes the record unless the shard already holds a live one for the key (an instance of this version counted it first).
const CARRY_ATTEMPT = new LuaScript(`${KEEP_AT_LEAST_LUA}
local member, now = ARGV[1], tonumber(ARGV[6])
for _, index in ipairs({KEYS[2], KEYS[3]}) do
  local expiry = redis.call('ZSCORE', index, member)
  if expiry and tonumber(expiry) > now then return 0 end
end
local index = ARGV[4] == '1' and KEYS[3] or KEYS[2]
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('ZADD', index, ARGV[3], member)
keep_at_least(index, ARGV[5])
return 1
`);

// KEYS: the shard's logins. ARGV: client key, until, TTL. The later of the two untils wins.
const CARRY_LOGIN = new LuaScript(`${KEEP_AT_LEAST_LUA}
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(current) < tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
keep_at_least(KEYS[1], ARGV[3])
return 1
`);

/**
 * Carries the state of the layout before hash tags (one `attempts` index, `attempt:<key>` records, `recent-successes`,
 * `global-failures`) into the sharded one, once, then deletes the old keys: an upgrade keeps its running bans, counts, recent
 * logins and the hour's budget. Only a standalone Redis can hold the old layout (its scripts never ran on a cluster).
 * Tickets (a minute) and the instance registry (15 s) are left to expire. Returns how many records were carried over.
 */
export async function carryLegacyLayout(connection: StoreConnection, keys: KeySpace, clock: Clock, budgetKey: string): Promise<number> {
  const { attemptIndex, attemptPrefix, recentSuccesses, globalFailures: legacyBudget } = keys.legacy;
  const lock = `${keys.prefix}legacy-layout-carry`;
  const found = await connection.send((client) => client.exists(attemptIndex, recentSuccesses, legacyBudget));
  if (found === 0) return 0;
  if ((await connection.send((client) => client.set(lock, '1', 'PX', LOCK_MS, 'NX'))) === null) return 0;
  const now = clock.now();
  // The budget first, and its old key deleted at once: the one step that would count twice if a second carry ran after the lock
  // ran out (the others keep the later of two values). The old hash has a shard's fields: it becomes one shard's part.
  const buckets = await connection.send((client) => client.hgetall(legacyBudget));
  for (const [bucket, entry] of Object.entries(buckets)) {
    const [count, expiresAt] = entry.split(':').map(Number);
    if (count === undefined || expiresAt === undefined || !(expiresAt > now)) continue;
    await addBudgetPart(connection, budgetKey, bucket, count, expiresAt, now);
  }
  await connection.send((client) => client.del(legacyBudget));
  let carried = 0;
  const members = await connection.send((client) => client.zrangebyscore(attemptIndex, `(${now}`, '+inf', 'WITHSCORES'));
  for (let i = 0; i + 1 < members.length; i += 2) {
    const member = members[i] as string;
    const expiresAt = Number(members[i + 1]);
    const json = await connection.send((client) => client.get(`${attemptPrefix}${member}`));
    if (json === null) continue;
    const banned = /"bannedUntil":/.test(json);
    const shard = keys.attemptsOf(member);
    const args = [member, json, expiresAt, banned ? '1' : '0', expiryTtl(expiresAt, now), now];
    carried += Number(await connection.run(CARRY_ATTEMPT, [`${shard.recordPrefix}${member}`, shard.counting, shard.banned], args));
  }
  const logins = await connection.send((client) => client.zrangebyscore(recentSuccesses, `(${now}`, '+inf', 'WITHSCORES'));
  for (let i = 0; i + 1 < logins.length; i += 2) {
    const member = logins[i] as string;
    const until = Number(logins[i + 1]);
    await connection.run(CARRY_LOGIN, [keys.attemptsOf(member).logins], [member, until, expiryTtl(until, now)]);
  }
  const oldRecords: string[] = [];
  for (let i = 0; i < members.length; i += 2) oldRecords.push(`${attemptPrefix}${members[i] as string}`);
  await connection.send((client) => client.del(attemptIndex, recentSuccesses, ...oldRecords));
  await connection.send((client) => client.del(lock));
  return carried;
}

// KEYS: a budget shard. ARGV: bucket, count, expiresAt, TTL. Adds to the bucket's part ("count:expiresAt").
const ADD_BUDGET_PART = new LuaScript(`${KEEP_AT_LEAST_LUA}
local current = redis.call('HGET', KEYS[1], ARGV[1])
local count, expires_at = 0, 0
if current then
  local c, e = string.match(current, '^(%-?%d+):(%-?%d+)$')
  count, expires_at = tonumber(c) or 0, tonumber(e) or 0
end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d:%d', count + tonumber(ARGV[2]), math.max(expires_at, tonumber(ARGV[3]))))
keep_at_least(KEYS[1], ARGV[4])
return 1
`);

async function addBudgetPart(
  connection: StoreConnection,
  key: string,
  bucket: string,
  count: number,
  expiresAt: number,
  now: number,
): Promise<void> {
  await connection.run(ADD_BUDGET_PART, [key], [bucket, count, expiresAt, expiryTtl(expiresAt, now)]);
}
