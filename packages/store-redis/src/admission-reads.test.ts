import { BanPolicy } from '@webui/core';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRedisServer } from './redis-test-server.js';

const redis = useRedisServer();
const CLIENT = '203.0.113.7';

describe('the clean-client memory holds no client this instance saw fail', () => {
  it('a read in flight when this instance counts the failure that bans: its clean answer is not remembered, the ban is seen', async () => {
    const clock = new FakeClock();
    const store = await redis.open({ prefix: `clean-memory-${randomUUID()}:`, clock });
    const bans = new BanPolicy(store, clock, { threshold: 1 });
    await bans.recordSuccess(CLIENT);
    // One connection keeps their order: the read is answered clean before the failure runs, and that answer arrives after it was sent.
    const [admission, failure] = await Promise.all([bans.admit(CLIENT), bans.recordFailure(CLIENT)]);
    expect(admission).toEqual({ kind: 'open', hold: null });
    expect(failure).toMatchObject({ banned: true, justBanned: true });
    expect(await bans.admit(CLIENT)).toMatchObject({ kind: 'banned' });
  });
});
