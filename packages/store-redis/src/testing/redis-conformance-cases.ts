import { FakeClock, storeConformanceCases } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { RedisStore } from '../redis-store.js';

/** The core's Store conformance cases over the Redis at `url()` (one server or a cluster); each case has a prefix of its own, so cases sharing one Redis never see each other's keys. */
export function redisConformanceCases(url: () => string): ReturnType<typeof storeConformanceCases> {
  return storeConformanceCases(async () => {
    const prefix = `conformance-${randomUUID()}:`;
    const clock = new FakeClock();
    const opened: RedisStore[] = [];
    const open = async (): Promise<RedisStore> => {
      const store = await RedisStore.connect({ url: url(), prefix, clock });
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
  });
}
