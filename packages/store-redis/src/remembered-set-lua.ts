import type { Clock } from '@webui/core';
import { expiryTtl, KEEP_AT_LEAST_LUA } from './expiry-ttl.js';
import { LuaScript } from './lua-script.js';
import type { StoreConnection } from './store-connection.js';

// KEYS: the sorted set (score = until). ARGV: member, until, now, cap, TTL. Past the cap, the entries nearest
// their end go first (with one lifetime for all, the least recently remembered), never the one just remembered.
const REMEMBER = new LuaScript(`${KEEP_AT_LEAST_LUA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, over)) do
    if over > 0 and member ~= ARGV[1] then
      redis.call('ZREM', KEYS[1], member)
      over = over - 1
    end
  end
end
keep_at_least(KEYS[1], ARGV[5])
return 1
`);

/** Keys remembered until a time, capped: the recent logins and the retired-token fingerprints. */
export class RedisRememberedSet {
  constructor(
    private readonly connection: StoreConnection,
    private readonly key: string,
    private readonly clock: Clock,
    private readonly max: number,
  ) {}

  async remember(member: string, until: number): Promise<void> {
    const now = this.clock.now();
    await this.connection.run(REMEMBER, [this.key], [member, until, now, this.max, expiryTtl(until, now)]);
  }

  async has(member: string): Promise<boolean> {
    const until = await this.connection.send((client) => client.zscore(this.key, member));
    return until !== null && Number(until) > this.clock.now();
  }
}
