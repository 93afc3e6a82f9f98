import { FakeClock, storeConformanceCases } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisStore } from './redis-store.js';
import { startRedisServer, type RedisServerHandle } from './testing/redis-server.js';

let redis: RedisServerHandle;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

describe('RedisStore conformance', () => {
  for (const c of storeConformanceCases(async () => {
    // A prefix of its own per case: the cases share one Redis and never see each other's keys.
    const prefix = `conformance-${randomUUID()}:`;
    const clock = new FakeClock();
    const opened: RedisStore[] = [];
    const open = async (): Promise<RedisStore> => {
      const store = await RedisStore.connect({ url: redis.url, prefix, clock });
      opened.push(store);
      return store;
    };
    const store = await open();
    return {
      store,
      clock,
      clients: (count) => Promise.all(Array.from({ length: count }, open)),
      cleanup: async () => {
        await Promise.all(opened.map((each) => each.close()));
      },
    };
  })) {
    it(c.name, c.run);
  }
});
