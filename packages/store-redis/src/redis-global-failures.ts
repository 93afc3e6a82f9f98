import type { Clock } from '@webui/core';
import type { BudgetBucket, FailureBudgetStore } from '@webui/core/adapter';
import { expiryTtl, KEEP_AT_LEAST_LUA } from './expiry-ttl.js';
import { randomInt } from 'node:crypto';
import { BUDGET_SHARDS, type KeySpace } from './key-space.js';
import { LuaScript } from './lua-script.js';
import type { StoreConnection } from './store-connection.js';

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
keep_at_least(KEYS[1], ARGV[5])
return count
`);

// KEYS: one shard's hash. ARGV: fromBucket, now. Replies bucket, count, bucket, count, …
const READ_GLOBAL_FAILURES = new LuaScript(`${LIVE_BUCKETS}
local listed = {}
for bucket, entry in pairs(live_buckets(KEYS[1], tonumber(ARGV[2]))) do
  if tonumber(bucket) >= tonumber(ARGV[1]) then
    listed[#listed + 1] = bucket
    listed[#listed + 1] = entry[1]
  end
end
return listed
`);

// KEYS: one shard's hash. A script, not a plain DEL, so that it carries a deadline like every write (script-deadline.ts).
const CLEAR_GLOBAL_FAILURES = new LuaScript(`
redis.call('DEL', KEYS[1])
return 1
`);

/**
 * The failures of every client per minute bucket (the global budget), added to atomically by every instance. Spread over
 * BUDGET_SHARDS keys so that no one key (on a cluster, no one node) takes every instance's writes: an instance adds to a shard
 * of its own choosing, and a read sums the shards, read all at once.
 */
export class RedisGlobalFailures implements FailureBudgetStore {
  // Chosen once per instance: its adds and their give-backs land on one key, and instances spread over the shards.
  private readonly shard = randomInt(BUDGET_SHARDS);

  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
  ) {}

  async addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    const key = this.keys.budgetShard(this.shard);
    await this.connection.run(ADD_GLOBAL_FAILURES, [key], [bucket, count, expiresAt, now, expiryTtl(expiresAt, now)]);
  }

  async clearGlobalFailures(): Promise<void> {
    // One DEL per shard: on a cluster the shards are on several nodes.
    await Promise.all(this.keys.allBudgetShards().map((key) => this.connection.run(CLEAR_GLOBAL_FAILURES, [key], [])));
  }

  async readGlobalFailures(fromBucket: number): Promise<BudgetBucket[]> {
    const now = this.clock.now();
    const shards = await Promise.all(
      this.keys.allBudgetShards().map((key) => this.connection.run(READ_GLOBAL_FAILURES, [key], [fromBucket, now])),
    );
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
