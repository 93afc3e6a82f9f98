import type { Clock } from '@webui/core';
import { KEEP_AT_LEAST_LUA } from './keys/expiry-ttl.js';
import type { KeySpace } from './keys/key-space.js';
import { LuaScript } from './lua/lua-script.js';
import type { StoreConnection } from './connection/store-connection.js';

/** An instance whose last heartbeat is younger than this is running. */
export const INSTANCE_LIVENESS_MS = 15_000;
const HEARTBEAT_INTERVAL_MS = 5_000;

/** Another server instance sharing the store. */
export interface RunningInstance {
  id: string;
  startedAt: number;
}

// KEYS: instances (sorted set, score = last heartbeat), start times (hash). ARGV: id, now, startedAt, liveness, registry TTL.
// Records this instance's heartbeat, forgets the silent ones, and replies id, startedAt, … of the others.
const HEARTBEAT = new LuaScript(`${KEEP_AT_LEAST_LUA}
local now, live_after = tonumber(ARGV[2]), tonumber(ARGV[2]) - tonumber(ARGV[4])
for _, silent in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', live_after)) do
  redis.call('ZREM', KEYS[1], silent)
  redis.call('HDEL', KEYS[2], silent)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
keep_at_least(KEYS[1], ARGV[5])
keep_at_least(KEYS[2], ARGV[5])
local others = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. live_after, '+inf')) do
  if id ~= ARGV[1] then
    others[#others + 1] = id
    others[#others + 1] = redis.call('HGET', KEYS[2], id) or '0'
  end
end
return others
`);

// KEYS: instances, start times. ARGV: id.
const LEAVE = new LuaScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`);

/** Which server instances share the store, by heartbeat: what the startup banner decides on. */
export class InstanceRegistry {
  private heartbeat: NodeJS.Timeout | null = null;
  private startedAt: number | null = null;

  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
    private readonly instanceId: string,
  ) {}

  /** Registers this instance, answers the others still beating, and beats every 5 s until leave(). */
  async join(startedAt: number): Promise<{ others: RunningInstance[] }> {
    this.startedAt = startedAt;
    const others = await this.beat(startedAt);
    if (this.heartbeat === null) {
      this.heartbeat = setInterval(() => {
        // Silent while Redis is down: the next beat tries again.
        this.beat(startedAt).catch(() => undefined);
      }, HEARTBEAT_INTERVAL_MS);
      this.heartbeat.unref();
    }
    return { others };
  }

  /** Stops the heartbeat and removes this instance, if it joined and Redis can be reached. */
  async leave(): Promise<void> {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.startedAt === null) return;
    this.startedAt = null;
    await this.connection.run(LEAVE, [this.keys.instances, this.keys.instanceStarts], [this.instanceId]).catch(() => undefined);
  }

  private async beat(startedAt: number): Promise<RunningInstance[]> {
    const keys = [this.keys.instances, this.keys.instanceStarts];
    const reply = await this.connection.run(HEARTBEAT, keys, [
      this.instanceId,
      this.clock.now(),
      startedAt,
      INSTANCE_LIVENESS_MS,
      2 * INSTANCE_LIVENESS_MS,
    ]);
    if (!Array.isArray(reply)) throw new Error(`unexpected reply to the heartbeat: ${String(reply)}`);
    const others: RunningInstance[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) others.push({ id: String(reply[i]), startedAt: Number(reply[i + 1]) });
    return others;
  }
}
