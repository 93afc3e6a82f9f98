import type { RedisClient } from './redis-client.js';
import type { LuaScript } from '../lua/lua-script.js';
import { StoreUnavailableError } from '@webui/core';
import { ScriptDeadline } from '../lua/script-deadline.js';
import { storeFailure } from './store-unavailable.js';

/**
 * The command connection as the store's parts use it: every failure comes out as StoreUnavailableError
 * or a bug. Its client is attached when the store opens; before that, every call fails as unreachable.
 */
export class StoreConnection {
  private client: RedisClient | null = null;
  /** The last call found Redis unavailable: true from then until a call succeeds, however the socket looks. */
  failing = false;
  /** What every script carries: the store reads Redis's clocks into it before any script runs. */
  readonly deadline = new ScriptDeadline();

  constructor(readonly address: string) {}

  /** Connected, and the last call got through. */
  get answering(): boolean {
    return this.client?.status === 'ready' && !this.failing;
  }

  attach(client: RedisClient): void {
    this.client = client;
  }

  async run(script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return this.send((client) => {
      const deadline = this.deadline.now();
      if (deadline === null) throw new StoreUnavailableError(`Redis at ${this.address} is unavailable: its clock has not been read yet`);
      return script.run(client, keys, args, deadline);
    });
  }

  async send<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      if (this.client === null) throw new Error('not connected yet');
      const result = await command(this.client);
      this.failing = false;
      return result;
    } catch (error) {
      const failure = storeFailure(this.address, error);
      // A killed Redis fails calls before its socket's close is noticed: /health must not say healthy meanwhile.
      if (failure instanceof StoreUnavailableError) this.failing = true;
      throw failure;
    }
  }
}
