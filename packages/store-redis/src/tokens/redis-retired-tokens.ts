import type { Clock } from '@webui/core';
import type { RetiredTokenStore } from '@webui/core/adapter';
import { expiryTtl } from '../keys/expiry-ttl.js';
import { LuaScript } from '../lua/lua-script.js';
import { REMEMBER_LUA } from '../lua/remembered-set-lua.js';
import type { StoreConnection } from '../connection/store-connection.js';

// KEYS: the retired-token set. ARGV: fingerprint, until, now, cap, TTL.
const RETIRE_TOKEN = new LuaScript(`${REMEMBER_LUA}
remember(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
return 1
`);

/** Retired-token fingerprints shared by every instance, in one capped sorted set (score = until). */
export class RedisRetiredTokens implements RetiredTokenStore {
  constructor(
    private readonly connection: StoreConnection,
    private readonly key: string,
    private readonly clock: Clock,
    private readonly max: number,
  ) {}

  async retireToken(fingerprint: string, until: number): Promise<void> {
    const now = this.clock.now();
    await this.connection.run(RETIRE_TOKEN, [this.key], [fingerprint, until, now, this.max, expiryTtl(until, now)]);
  }

  async isRetiredToken(fingerprint: string): Promise<boolean> {
    const until = await this.connection.send((client) => client.zscore(this.key, fingerprint));
    return until !== null && Number(until) > this.clock.now();
  }
}
