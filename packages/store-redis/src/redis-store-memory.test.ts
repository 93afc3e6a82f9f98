import { StoreUnavailableError } from '@webui/core';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RedisStoreEvent } from './redis-store-event.js';
import { RedisStore } from './redis-store.js';
import { useRedisServer } from './redis-test-server.js';
import { startRedisServer } from './testing/redis-server.js';

const redis = useRedisServer();

function failureAt(at: number, threshold = 5): { at: number; windowStart: number; threshold: number; banUntil: number; keepUntil: number } {
  return { at, windowStart: at - 300_000, threshold, banUntil: at + 600_000, keepUntil: at + 300_000 };
}

describe('RedisStore and the memory of Redis', () => {
  it('a Redis full under noeviction refuses writes: every write fails closed with StoreUnavailableError, and works again once there is room', async () => {
    const clock = new FakeClock();
    const store = await redis.open({ prefix: `memory-${randomUUID()}:`, clock });
    const raw = redis.raw();
    const used = Number(/^used_memory:(\d+)/m.exec(await raw.info('memory'))?.[1]);
    await raw.config('SET', 'maxmemory-policy', 'noeviction');
    await raw.config('SET', 'maxmemory', String(used + 512 * 1024));
    try {
      // Filled by someone else's keys until Redis says OOM.
      const filler = `filler-${randomUUID()}:`;
      for (let i = 0; ; i++) {
        const full = await raw.set(`${filler}${i}`, 'x'.repeat(64 * 1024)).then(
          () => false,
          (error: Error) => error.message.startsWith('OOM'),
        );
        if (full) break;
      }
      const now = clock.now();
      await expect(store.attempts.countFailure('203.0.113.7', failureAt(now))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.budget.addGlobalFailures(1, 1, now + 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.tickets.putTicket('t', { sessionToken: 's', expiresAt: now + 60_000 })).rejects.toThrow(/OOM/);
      expect(store.available).toBe(false);
      await raw.config('SET', 'maxmemory', '0');
      expect(await store.attempts.countFailure('203.0.113.7', failureAt(now))).toEqual({ kind: 'counted', failures: 1 });
      expect(store.available).toBe(true);
    } finally {
      await raw.config('SET', 'maxmemory', '0');
      await raw.flushdb();
    }
  });

  it('warns at open of a Redis whose maxmemory-policy may evict keys', async () => {
    const evicting = await startRedisServer({ config: { 'maxmemory-policy': 'allkeys-lru' } });
    try {
      const events: RedisStoreEvent[] = [];
      const store = await RedisStore.connect({ url: evicting.url, clock: new FakeClock(), onEvent: (event) => events.push(event) });
      await store.close();
      expect(events).toEqual([{ kind: 'evicting-policy', address: evicting.url, masters: [`127.0.0.1:${evicting.port} allkeys-lru`] }]);
      const quiet: RedisStoreEvent[] = [];
      await (await redis.open({ clock: new FakeClock(), onEvent: (event) => quiet.push(event) })).close();
      expect(quiet).toEqual([]);
    } finally {
      await evicting.stop();
    }
  });

  it('an upgrade carries the old key layout over once: running bans, counts, recent logins and the budget survive it', async () => {
    const clock = new FakeClock();
    const now = clock.now();
    const prefix = `legacy-${randomUUID()}:`;
    const raw = redis.raw();
    // What the scripts before hash tags wrote.
    const ban = JSON.stringify({ bannedUntil: now + 600_000, lastFailureAt: now });
    const count = JSON.stringify({ failures: [{ at: now }, { at: now + 1 }], lastFailureAt: now + 1 });
    await raw.set(`${prefix}attempt:198.51.100.1`, ban, 'PX', 601_000);
    await raw.set(`${prefix}attempt:198.51.100.2`, count, 'PX', 301_000);
    await raw.zadd(`${prefix}attempts`, now + 600_000, '198.51.100.1', now + 300_001, '198.51.100.2', now - 1, 'expired');
    await raw.zadd(`${prefix}recent-successes`, now + 60_000, '198.51.100.3');
    await raw.hset(`${prefix}global-failures`, '1000', `7:${now + 3_600_000}`);

    const events: RedisStoreEvent[] = [];
    const store = await redis.open({ prefix, clock, onEvent: (event) => events.push(event) });
    expect(events).toContainEqual({ kind: 'layout-upgraded', address: redis.server().url, carried: 2 });
    expect(await store.attempts.readAttempts('198.51.100.1')).toEqual({ failures: [], bannedUntil: now + 600_000, lastFailureAt: now });
    expect((await store.attempts.countFailure('198.51.100.2', failureAt(now + 2))).kind).toBe('counted');
    expect((await store.attempts.readAttempts('198.51.100.2'))?.failures.length).toBe(3);
    expect((await store.attempts.readClient('198.51.100.3')).loggedInRecently).toBe(true);
    expect(await store.budget.readGlobalFailures(0)).toEqual([{ bucket: 1000, count: 7 }]);
    expect(await raw.keys(`${prefix}attempt*`)).toEqual([]);
    expect(await raw.exists(`${prefix}recent-successes`, `${prefix}global-failures`)).toBe(0);
    // A second start finds nothing left to carry.
    const again: RedisStoreEvent[] = [];
    await redis.open({ prefix, clock, onEvent: (event) => again.push(event) });
    expect(again).toEqual([]);
    expect(await store.budget.readGlobalFailures(0)).toEqual([{ bucket: 1000, count: 7 }]);
  });
});
