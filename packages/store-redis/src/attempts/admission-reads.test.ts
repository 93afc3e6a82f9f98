import { BanPolicy } from '@webui/core';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../redis-test-server.js';

const redis = useRedisServer();
const CLIENT = '203.0.113.7';

describe('admission reads shared by the requests of one client', () => {
  it('an admission after this instance counted a failure does not join the read sent before it: it sees the ban', async () => {
    const clock = new FakeClock();
    const store = await redis.open({ prefix: `admission-reads-${randomUUID()}:`, clock });
    const bans = new BanPolicy(store, clock, { threshold: 1 });
    await bans.recordSuccess(CLIENT);
    const now = clock.now();
    // One connection keeps their order: the first read runs before the failure, the second after it.
    const before = bans.admit(CLIENT);
    const failure = store.attempts.countFailure(CLIENT, {
      at: now,
      windowStart: now - 300_000,
      threshold: 1,
      banUntil: now + 600_000,
      keepUntil: now + 300_000,
    });
    const after = bans.admit(CLIENT);
    expect(await before).toEqual({ kind: 'open', hold: null });
    expect(await failure).toEqual({ kind: 'banned', bannedUntil: now + 600_000 });
    expect(await after).toMatchObject({ kind: 'banned' });
  });
});
