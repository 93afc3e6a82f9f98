import { StoreUnavailableError } from '@webui/core';
import type { TokenRecord } from '@webui/core/adapter';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../redis-test-server.js';
import { eventually } from '../testing/eventually.js';

const redis = useRedisServer();
const RECORD: TokenRecord = { accessToken: 'kept-through-the-freeze-01', tokenSource: 'configured', firstSetupCompleted: true };
const NEXT: TokenRecord = { accessToken: 'never-written-by-a-late-swap', tokenSource: 'configured', firstSetupCompleted: true };

describe('a script carries a deadline in Redis clock', () => {
  it('calls answered 503 while Redis was frozen change nothing when it runs again: the count, the swap, the ticket, the budget', async () => {
    const clock = new FakeClock();
    const prefix = `deadline-${randomUUID()}:`;
    const store = await redis.open({ prefix, clock });
    await store.record.swapRecord(null, RECORD);
    const now = clock.now();
    const failure = { at: now, windowStart: now - 300_000, threshold: 1, banUntil: now + 600_000, keepUntil: now + 300_000 };
    // Each script run once before, as on a running server: Redis knows them, so EVALSHA alone would run them.
    await store.attempts.countFailure('198.51.100.1', failure);
    await store.tickets.putTicket('warm-ticket', { sessionToken: 'session', expiresAt: now + 60_000 });
    await store.budget.addGlobalFailures(1, 1, now + 60_000);
    await store.budget.addGlobalFailures(1, -1, now + 60_000);
    await store.budget.clearGlobalFailures();
    await store.budget.addGlobalFailures(2, 3, now + 60_000);

    redis.server().freeze();
    try {
      // Sent to a Redis that holds them unanswered until the command timeout gives up on them.
      const calls = await Promise.allSettled([
        store.attempts.countFailure('203.0.113.7', failure),
        store.record.swapRecord(RECORD, NEXT),
        store.tickets.putTicket('late-ticket', { sessionToken: 'session', expiresAt: now + 60_000 }),
        store.budget.addGlobalFailures(1, 1, now + 60_000),
        store.budget.clearGlobalFailures(),
      ]);
      for (const call of calls) expect(call.status === 'rejected' && call.reason).toBeInstanceOf(StoreUnavailableError);
    } finally {
      redis.server().thaw();
    }

    // The same connection runs them first, then this read: each found its deadline past and did nothing.
    await eventually(
      async () => (await store.attempts.readAttempts('203.0.113.7').catch(() => 'failing')) !== 'failing',
      5_000,
      'Redis again',
    );
    expect(await store.attempts.readAttempts('203.0.113.7')).toBeNull();
    expect(await redis.raw().hget(`${prefix}record`, 'json')).toContain(RECORD.accessToken);
    expect(await store.tickets.consumeTicket('late-ticket')).toBeNull();
    expect(await store.budget.readGlobalFailures(0)).toEqual([{ bucket: 2, count: 3 }]);
    // And a script in time acts as ever.
    expect(await store.attempts.countFailure('203.0.113.7', failure)).toEqual({ kind: 'banned', bannedUntil: now + 600_000 });
  });
});
