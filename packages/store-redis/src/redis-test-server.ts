import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';
import { startRedisServer, type RedisServerHandle } from './testing/redis-server.js';

/**
 * One real redis-server for a test file, a raw client to look inside it, and stores that are closed
 * after each test: registers the vitest hooks, so call it at the top level of the file.
 */
export function useRedisServer(): {
  server(): RedisServerHandle;
  raw(): Redis;
  open(options: Omit<RedisStoreOptions, 'url'> & { url?: string }): Promise<RedisStore>;
} {
  let server: RedisServerHandle | undefined;
  let raw: Redis | undefined;
  let opened: RedisStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url);
  });
  afterEach(async () => {
    await Promise.all(opened.map((store) => store.close()));
    opened = [];
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the redis-server of this file has not started');
    return value;
  };
  return {
    server: () => started(server),
    raw: () => started(raw),
    async open(options) {
      // A test may name another database of the same server.
      const store = await RedisStore.connect({ url: started(server).url, ...options });
      opened.push(store);
      return store;
    },
  };
}
