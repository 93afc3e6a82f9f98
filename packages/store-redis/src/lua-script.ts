import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.js';

/** A Lua script run by its SHA-1 (EVALSHA), sent whole only when the server does not know it yet (after a restart). */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
