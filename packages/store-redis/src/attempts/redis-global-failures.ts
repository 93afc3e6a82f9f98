import type { Clock } from '@webui/core';
import type { BudgetBucket, FailureBudgetStore } from '@webui/core/adapter';
import { expiryTtl, KEEP_AT_LEAST_LUA } from '../keys/expiry-ttl.js';
import { randomInt } from 'node:crypto';
import { BUDGET_SHARDS, type KeySpace } from '../keys/key-space.js';
import { LuaScript } from '../lua/lua-script.js';
import type { StoreConnection } from '../connection/store-connection.js';

// Each budget shard is one hash, bucket -> "count:expiresAt" (its part of the bucket's count; the parts may be negative, their sum
// is the count); at most one live bucket per minute of the window, so reading it whole is cheap.
const LIVE_BUCKETS = `
local function live_buckets(key, now)
  local live = {}
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    local count, expires_at = string.match(all[i + 1], '^(%-?%d+):(%-?%d+)$')
    if count and tonumber(expires_at) > now then
      live[all[i]] = {tonumber(count), tonumber(expires_at)}
    else
      redis.call('HDEL', key, all[i])
    end
  end
  return live
end
`;

// KEYS: one shard's hash. ARGV: bucket, count, expiresAt, now, TTL.
const ADD_GLOBAL_FAILURES = new LuaScript(`${LIVE_BUCKETS}${KEEP_AT_LEAST_LUA}
local live = live_buckets(KEYS[1], tonumber(ARGV[4]))
local current = live[ARGV[1]] or {0, 0}
local count = current[1] + tonumber(ARGV[2])
local expires_at = math.max(current[2], tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d:%d', count, expires_at))
-- The key already outlives a bucket it held with this expiry: only a new or later one lengthens it.
if expires_at > current[2] then keep_at_least(KEYS[1], ARGV[5]) end
return count
`);

// KEYS: shards' hashes (on a cluster one, each shard being its own slot; on one Redis all of them). ARGV: fromBucket, now.
// Replies bucket, count, bucket, count, … (a bucket once per shard holding it).
const READ_GLOBAL_FAILURES = new LuaScript(`${LIVE_BUCKETS}
local listed = {}
for _, key in ipairs(KEYS) do
  for bucket, entry in pairs(live_buckets(key, tonumber(ARGV[2]))) do
    if tonumber(bucket) >= tonumber(ARGV[1]) then
      listed[#listed + 1] = bucket
      listed[#listed + 1] = entry[1]
    end
  end
end
return listed
`);

// KEYS: shards' hashes, as above. A script, not a plain DEL, so that it carries a deadline like every write (../lua/script-deadline.ts).
const CLEAR_GLOBAL_FAILURES = new LuaScript(`
redis.call('DEL', unpack(KEYS))
return 1
`);

/**
 * The failures of every client per minute bucket (the global budget), added to atomically by every instance. Spread over
 * BUDGET_SHARDS keys so that no one key (on a cluster, no one node) takes every instance's writes: an instance adds to a shard
 * of its own choosing, and a read sums the shards: on a cluster one script per shard, all at once (each on its own slot), on
 * one Redis one script over the four.
 */
export class RedisGlobalFailures implements FailureBudgetStore {
  // Chosen once per instance: its adds and their give-backs land on one key, and instances spread over the shards.
  private readonly shard = randomInt(BUDGET_SHARDS);
  // The key lists each read or reset sends: one list of all four on one Redis, one list per shard on a cluster.
  private readonly scriptKeys: ReadonlyArray<readonly string[]>;

  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
    oneNode: boolean,
  ) {
    const shards = keys.allBudgetShards();
    this.scriptKeys = oneNode ? [shards] : shards.map((key) => [key]);
  }

  async addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    const key = this.keys.budgetShard(this.shard);
    await this.connection.run(ADD_GLOBAL_FAILURES, [key], [bucket, count, expiresAt, now, expiryTtl(expiresAt, now)]);
  }

  async clearGlobalFailures(): Promise<void> {
    await Promise.all(this.scriptKeys.map((keys) => this.connection.run(CLEAR_GLOBAL_FAILURES, keys, [])));
  }

  async readGlobalFailures(fromBucket: number): Promise<BudgetBucket[]> {
    const now = this.clock.now();
    const shards = await Promise.all(this.scriptKeys.map((keys) => this.connection.run(READ_GLOBAL_FAILURES, keys, [fromBucket, now])));
    const counts = new Map<number, number>();
    for (const listed of shards) {
      if (!Array.isArray(listed)) throw new Error(`unexpected reply to the global failure read: ${String(listed)}`);
      for (let i = 0; i + 1 < listed.length; i += 2) {
        const bucket = Number(listed[i]);
        counts.set(bucket, (counts.get(bucket) ?? 0) + Number(listed[i + 1]));
      }
    }
    return [...counts].map(([bucket, count]) => ({ bucket, count })).sort((a, b) => a.bucket - b.bucket);
  }
}
