import { createHash } from 'node:crypto';
import type { RedisClient } from '../connection/redis-client.js';
import { DEADLINE_GUARD_LUA } from './script-deadline.js';

/**
 * A Lua script run by its SHA-1 (EVALSHA), sent whole only when the server does not know it yet (after a restart). Every one
 * starts with the deadline guard and is run with its deadline after its own arguments.
 */
export class LuaScript {
  private readonly source: string;
  private readonly sha: string;

  constructor(source: string) {
    this.source = `${DEADLINE_GUARD_LUA}${source}`;
    this.sha = createHash('sha1').update(this.source).digest('hex');
  }

  async run(client: RedisClient, keys: readonly string[], args: ReadonlyArray<string | number>, deadline: number): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args, deadline);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args, deadline);
    }
  }
}
