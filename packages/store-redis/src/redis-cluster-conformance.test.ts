import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from './redis-store.js';
import { floodKeepsBans } from './testing/flood.js';
import { redisConformanceCases } from './testing/redis-conformance-cases.js';
import { startRedisCluster, type RedisClusterHandle } from './testing/redis-cluster.js';

// One six-node cluster (three masters, a replica each) for the file; every case has a prefix of its own.
let cluster: RedisClusterHandle;

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('RedisStore conformance on a Redis Cluster', () => {
  for (const c of redisConformanceCases(() => cluster.url)) it(c.name, c.run);

  it('a flood of 20,000 new client keys against a small cap: every running ban survives it (200,000 in the soak)', async () => {
    const clock = new FakeClock();
    const store = await RedisStore.connect({ url: cluster.url, prefix: `flood-${randomUUID()}:`, clock, limits: { maxAttemptKeys: 256 } });
    try {
      expect(await floodKeepsBans(store, clock.now(), 20_000)).toEqual({ bansKept: 50, counted: 256 });
    } finally {
      await store.close();
    }
  });

  it('the keys are spread over every master: no node holds them all', async () => {
    const clock = new FakeClock();
    const store = await RedisStore.connect({ url: cluster.url, prefix: `spread-${randomUUID()}:`, clock });
    try {
      const now = clock.now();
      await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          store.attempts.countFailure(`203.0.113.${i}`, {
            at: now,
            windowStart: now - 300_000,
            threshold: 5,
            banUntil: now + 600_000,
            keepUntil: now + 300_000,
          }),
        ),
      );
      const masters = new Set(await Promise.all(Array.from({ length: 16 }, (_, shard) => cluster.masterOf(`x{attempts:${shard}}`))));
      expect(masters.size).toBe(3);
      expect((await store.attempts.listAttempts()).length).toBe(64);
    } finally {
      await store.close();
    }
  });
});
