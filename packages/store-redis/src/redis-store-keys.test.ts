import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';
import { useRedisServer } from './redis-test-server.js';

const SESSION_TOKEN = 'the-access-token-itself-0123456789';

const redis = useRedisServer();

async function connected(options: Partial<RedisStoreOptions> & { clock: FakeClock }): Promise<RedisStore> {
  return redis.open({ prefix: `keys-${randomUUID()}:`, ...options });
}

function failureAt(at: number, threshold = 5): { at: number; windowStart: number; threshold: number; banUntil: number; keepUntil: number } {
  return { at, windowStart: at - 300_000, threshold, banUntil: at + 600_000, keepUntil: at + 300_000 };
}

describe('RedisStore keys', () => {
  it('every key lives under the prefix, and none is named by a session token', async () => {
    // A database of its own: KEYS * there sees this store's keys and nothing else.
    const url = redis.server().url.replace(/\/0$/, '/7');
    const prefix = 'only-under-this:';
    const clock = new FakeClock();
    const store = await connected({ url, prefix, clock });
    const other = await connected({ url, prefix, clock });
    const now = clock.now();
    await store.swapRecord(null, { accessToken: SESSION_TOKEN, firstSetupCompleted: true });
    await store.countFailure('203.0.113.7', failureAt(now));
    await store.countFailure('198.51.100.1', failureAt(now, 1));
    await store.addGlobalFailures(100, 2, now + 60_000);
    await store.rememberSuccess('203.0.113.8', now + 60_000);
    await store.retireToken('ab'.repeat(32), now + 60_000);
    await store.putTicket('ticket-1', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
    await other.putTicket('ticket-2', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
    await store.joinInstances(now);
    await other.joinInstances(now);

    const db = new Redis(url);
    try {
      const keys = await db.keys('*');
      expect(keys.length).toBeGreaterThan(10);
      for (const key of keys) expect(key.startsWith(prefix), key).toBe(true);
      for (const key of keys) expect(key).not.toContain(SESSION_TOKEN);
    } finally {
      db.disconnect();
    }
  });

  it('attempts, tickets, global failures and remembered keys carry a TTL, so Redis forgets them without a sweeper', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const store = await connected({ prefix, clock });
    const now = clock.now();
    await store.countFailure('203.0.113.7', failureAt(now));
    await store.putTicket('ticket-1', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
    await store.addGlobalFailures(100, 2, now + 60_000);
    await store.rememberSuccess('203.0.113.8', now + 60_000);
    await store.retireToken('ab'.repeat(32), now + 60_000);
    const ttls = Object.fromEntries(
      await Promise.all(
        ['attempt:203.0.113.7', 'attempts', 'ticket:ticket-1', 'tickets', 'global-failures', 'recent-successes', 'retired-tokens'].map(async (name) => [name, await redis.raw().pttl(`${prefix}${name}`)] as const),
      ),
    );
    for (const [name, ttl] of Object.entries(ttls)) expect(ttl, name).toBeGreaterThan(0);
    // The failure is kept for its window (300 s), the ticket for its minute; never much longer.
    expect(ttls['attempt:203.0.113.7']).toBeLessThanOrEqual(301_000);
    expect(ttls['ticket:ticket-1']).toBeLessThanOrEqual(61_000);
  });

  it('maxTicketsPerSession holds across instances: the fourth ticket of a session drops its oldest', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const first = await connected({ prefix, clock, limits: { maxTicketsPerSession: 3 } });
    const second = await connected({ prefix, clock, limits: { maxTicketsPerSession: 3 } });
    const grant = { sessionToken: SESSION_TOKEN, expiresAt: clock.now() + 60_000 };
    await first.putTicket('ticket-1', grant);
    await second.putTicket('ticket-2', grant);
    await first.putTicket('ticket-3', grant);
    await first.putTicket('other-session', { ...grant, sessionToken: 'another-session-token' });
    await second.putTicket('ticket-4', grant);
    expect(await first.consumeTicket('ticket-1')).toBeNull();
    for (const ticket of ['ticket-2', 'ticket-3', 'ticket-4', 'other-session']) expect(await second.consumeTicket(ticket), ticket).not.toBeNull();
  });

  it('maxTickets holds overall: a full store drops its oldest ticket, whichever session it is of', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const first = await connected({ prefix, clock, limits: { maxTickets: 2 } });
    const second = await connected({ prefix, clock, limits: { maxTickets: 2 } });
    const expiresAt = clock.now() + 60_000;
    await first.putTicket('a', { sessionToken: 'session-a', expiresAt });
    await second.putTicket('b', { sessionToken: 'session-b', expiresAt });
    await first.putTicket('c', { sessionToken: 'session-c', expiresAt });
    expect(await second.consumeTicket('a')).toBeNull();
    expect(await second.consumeTicket('b')).toEqual({ sessionToken: 'session-b', expiresAt });
    expect(await first.consumeTicket('c')).toEqual({ sessionToken: 'session-c', expiresAt });
  });

  it('maxAttemptKeys: a full store forgets the expired first, then the record that expires soonest', async () => {
    const clock = new FakeClock();
    const store = await connected({ clock, limits: { maxAttemptKeys: 2 } });
    const at = clock.now();
    await store.countFailure('short', { ...failureAt(at), keepUntil: at + 1_000 });
    await store.countFailure('banned', failureAt(at, 1));
    await store.countFailure('newer', failureAt(at));
    expect((await store.listAttempts()).map((entry) => entry.key).sort()).toEqual(['banned', 'newer']);
    clock.advance(300_000);
    // 'newer' has expired by the clock: it goes, the running ban stays.
    await store.countFailure('latest', failureAt(clock.now()));
    expect((await store.listAttempts()).map((entry) => entry.key).sort()).toEqual(['banned', 'latest']);
  });

  it('recent successes past the cap drop the one nearest its end, never the one just remembered', async () => {
    const clock = new FakeClock();
    const store = await connected({ clock, limits: { maxRecentSuccesses: 2, maxRetiredTokens: 1 } });
    const now = clock.now();
    await store.rememberSuccess('a', now + 10_000);
    await store.rememberSuccess('b', now + 20_000);
    await store.rememberSuccess('c', now + 5_000);
    expect([await store.hasRecentSuccess('a'), await store.hasRecentSuccess('b'), await store.hasRecentSuccess('c')]).toEqual([false, true, true]);
    await store.retireToken('old', now + 60_000);
    await store.retireToken('new', now + 60_000);
    expect([await store.isRetiredToken('old'), await store.isRetiredToken('new')]).toEqual([false, true]);
  });

  it('joinInstances sees the other instance, with its start time, and stops seeing it after close or 15 s of silence', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const first = await connected({ prefix, clock });
    const second = await connected({ prefix, clock });
    const third = await connected({ prefix, clock });
    expect(await first.joinInstances(1_000)).toEqual({ others: [] });
    expect(await second.joinInstances(2_000)).toEqual({ others: [{ id: first.instanceId, startedAt: 1_000 }] });
    expect((await first.joinInstances(1_000)).others).toEqual([{ id: second.instanceId, startedAt: 2_000 }]);
    await second.close();
    expect(await first.joinInstances(1_000)).toEqual({ others: [] });

    await third.joinInstances(3_000);
    clock.advance(15_000);
    // third's heartbeat timer beats every 5 s of real time: on this fake clock its last beat is now 15 s old.
    expect(await first.joinInstances(1_000)).toEqual({ others: [] });
  });
});
