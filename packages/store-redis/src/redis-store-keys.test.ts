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
    await store.record.swapRecord(null, { accessToken: SESSION_TOKEN, firstSetupCompleted: true });
    await store.attempts.countFailure('203.0.113.7', failureAt(now));
    await store.attempts.countFailure('198.51.100.1', failureAt(now, 1));
    await store.budget.addGlobalFailures(100, 2, now + 60_000);
    await store.attempts.recordLogin('203.0.113.8', now, now + 60_000);
    await store.retiredTokens.retireToken('ab'.repeat(32), now + 60_000);
    await store.tickets.putTicket('ticket-1', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
    await other.tickets.putTicket('ticket-2', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
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
    // One shard for the attempts, and the budget read back from the one shard this instance wrote.
    const store = await connected({ prefix, clock, attemptShards: 1 });
    const now = clock.now();
    await store.attempts.countFailure('203.0.113.7', failureAt(now));
    await store.tickets.putTicket('ticket-1', { sessionToken: SESSION_TOKEN, expiresAt: now + 60_000 });
    await store.budget.addGlobalFailures(100, 2, now + 60_000);
    await store.attempts.recordLogin('203.0.113.8', now, now + 60_000);
    await store.retiredTokens.retireToken('ab'.repeat(32), now + 60_000);
    const ttls = Object.fromEntries(
      await Promise.all(
        [
          '{attempts:0}record:203.0.113.7',
          '{attempts:0}counting',
          '{attempts:0}logins',
          '{tickets}ticket:ticket-1',
          '{tickets}all',
          '{budget:0}failures',
          'retired-tokens',
        ].map(async (name) => [name, await redis.raw().pttl(`${prefix}${name}`)] as const),
      ),
    );
    const budgetTtls = await Promise.all([0, 1, 2, 3].map((shard) => redis.raw().pttl(`${prefix}{budget:${shard}}failures`)));
    ttls['{budget:0}failures'] = Math.max(...budgetTtls);
    for (const [name, ttl] of Object.entries(ttls)) expect(ttl, name).toBeGreaterThan(0);
    // The failure is kept for its window (300 s), the ticket for its minute; never much longer.
    expect(ttls['{attempts:0}record:203.0.113.7']).toBeLessThanOrEqual(301_000);
    expect(ttls['{tickets}ticket:ticket-1']).toBeLessThanOrEqual(61_000);
  });

  it('maxTicketsPerSession holds across instances: the fourth ticket of a session drops its oldest', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const first = await connected({ prefix, clock, limits: { maxTicketsPerSession: 3 } });
    const second = await connected({ prefix, clock, limits: { maxTicketsPerSession: 3 } });
    const grant = { sessionToken: SESSION_TOKEN, expiresAt: clock.now() + 60_000 };
    await first.tickets.putTicket('ticket-1', grant);
    await second.tickets.putTicket('ticket-2', grant);
    await first.tickets.putTicket('ticket-3', grant);
    await first.tickets.putTicket('other-session', { ...grant, sessionToken: 'another-session-token' });
    await second.tickets.putTicket('ticket-4', grant);
    expect(await first.tickets.consumeTicket('ticket-1')).toBeNull();
    for (const ticket of ['ticket-2', 'ticket-3', 'ticket-4', 'other-session'])
      expect(await second.tickets.consumeTicket(ticket), ticket).not.toBeNull();
  });

  it('maxTickets holds overall: a full store drops its oldest ticket, whichever session it is of', async () => {
    const clock = new FakeClock();
    const prefix = `keys-${randomUUID()}:`;
    const first = await connected({ prefix, clock, limits: { maxTickets: 2 } });
    const second = await connected({ prefix, clock, limits: { maxTickets: 2 } });
    const expiresAt = clock.now() + 60_000;
    await first.tickets.putTicket('a', { sessionToken: 'session-a', expiresAt });
    await second.tickets.putTicket('b', { sessionToken: 'session-b', expiresAt });
    await first.tickets.putTicket('c', { sessionToken: 'session-c', expiresAt });
    expect(await second.tickets.consumeTicket('a')).toBeNull();
    expect(await second.tickets.consumeTicket('b')).toEqual({ sessionToken: 'session-b', expiresAt });
    expect(await first.tickets.consumeTicket('c')).toEqual({ sessionToken: 'session-c', expiresAt });
  });

  it('maxAttemptKeys caps the counts only: a full store forgets the expired first, then refuses a new key; no ban is evicted', async () => {
    const clock = new FakeClock();
    const store = await connected({ clock, limits: { maxAttemptKeys: 2 }, attemptShards: 1 });
    const at = clock.now();
    await store.attempts.countFailure('short', { ...failureAt(at), keepUntil: at + 1_000 });
    await store.attempts.countFailure('banned', failureAt(at, 1));
    await store.attempts.countFailure('counting', failureAt(at));
    expect(await store.attempts.countFailure('refused', failureAt(at))).toEqual({ kind: 'full' });
    // The admission read says so before any guess is checked, and when room is made.
    expect(await store.attempts.readClient('refused')).toEqual({ attempts: null, loggedInRecently: false, countsFullUntil: at + 1_000 });
    expect((await store.attempts.readClient('counting')).countsFullUntil).toBeUndefined();
    expect((await store.attempts.listAttempts()).map((entry) => entry.key).sort()).toEqual(['banned', 'counting', 'short']);
    clock.advance(1_000);
    // 'short' has expired by the clock: its place goes to a new key; the running ban was never in the count.
    expect(await store.attempts.countFailure('latest', failureAt(clock.now()))).toEqual({ kind: 'counted', failures: 1 });
    expect(await store.attempts.countFailure('counting', failureAt(clock.now()))).toEqual({ kind: 'counted', failures: 2 });
    expect((await store.attempts.listAttempts()).map((entry) => entry.key).sort()).toEqual(['banned', 'counting', 'latest']);
  });

  it('a flood of new client keys against a small cap: every running ban survives, and a count that reaches its ban frees its place', async () => {
    const clock = new FakeClock();
    const store = await connected({ clock, limits: { maxAttemptKeys: 64 } });
    const at = clock.now();
    const attackers = Array.from({ length: 20 }, (_, i) => `198.51.100.${i}`);
    for (const attacker of attackers) expect((await store.attempts.countFailure(attacker, failureAt(at, 1))).kind).toBe('banned');
    const tallies = await Promise.all(Array.from({ length: 5_000 }, (_, i) => store.attempts.countFailure(`flood-${i}`, failureAt(at))));
    expect(tallies.filter((tally) => tally.kind === 'counted').length).toBeLessThanOrEqual(64);
    expect(tallies.filter((tally) => tally.kind === 'full').length).toBeGreaterThanOrEqual(5_000 - 64);
    for (const attacker of attackers) expect((await store.attempts.readAttempts(attacker))?.bannedUntil, attacker).toBe(at + 600_000);
    const listed = await store.attempts.listAttempts();
    expect(listed.filter((entry) => entry.record.bannedUntil !== undefined).length).toBe(20);
    // A counted key that goes on to its ban leaves the counts: its shard has room for one new key again.
    const counted = tallies.findIndex((tally) => tally.kind === 'counted');
    expect((await store.attempts.countFailure(`flood-${counted}`, failureAt(at, 2))).kind).toBe('banned');
    const retried = await Promise.all(
      Array.from({ length: 5_000 }, (_, i) => store.attempts.countFailure(`flood-${i}`, failureAt(at + 1))),
    );
    expect(retried.filter((tally) => tally.kind === 'counted' && tally.failures === 1).length).toBe(1);
  });

  it('recent successes past the cap drop the one nearest its end, never the one just remembered', async () => {
    const clock = new FakeClock();
    const store = await connected({ clock, limits: { maxRecentSuccesses: 2, maxRetiredTokens: 1 }, attemptShards: 1 });
    const now = clock.now();
    await store.attempts.recordLogin('a', now, now + 10_000);
    await store.attempts.recordLogin('b', now, now + 20_000);
    await store.attempts.recordLogin('c', now, now + 5_000);
    const recent = async (key: string): Promise<boolean> => (await store.attempts.readClient(key)).loggedInRecently;
    expect([await recent('a'), await recent('b'), await recent('c')]).toEqual([false, true, true]);
    await store.retiredTokens.retireToken('old', now + 60_000);
    await store.retiredTokens.retireToken('new', now + 60_000);
    expect([await store.retiredTokens.isRetiredToken('old'), await store.retiredTokens.isRetiredToken('new')]).toEqual([false, true]);
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
