import type { Redis } from 'ioredis';
import type { LuaScript } from './lua-script.js';
import { storeFailure } from './store-unavailable.js';

/** The command connection as the store's parts use it: every failure comes out as StoreUnavailableError or a bug. */
export class StoreConnection {
  constructor(
    readonly client: Redis,
    readonly address: string,
  ) {}

  async run(script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await script.run(this.client, keys, args);
    } catch (error) {
      throw storeFailure(this.address, error);
    }
  }

  async send<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await command(this.client);
    } catch (error) {
      throw storeFailure(this.address, error);
    }
  }
}
