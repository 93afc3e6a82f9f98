import { BanPolicy } from '@webui/core';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRedisServer } from './redis-test-server.js';
import { eventually } from './testing/eventually.js';

const redis = useRedisServer();
const CLIENT = '203.0.113.7';

/** The commands clients sent to Redis while `run` ran (those a script ran inside are not round trips), seen through MONITOR. */
async function commandsSentDuring(run: () => Promise<unknown>): Promise<string[]> {
  return (await commandsDuring(run)).sent;
}

/** What MONITOR saw while `run` ran: the commands clients sent, and those the scripts ran inside Redis. */
async function commandsDuring(run: () => Promise<unknown>): Promise<{ sent: string[]; ranByScripts: string[] }> {
  const monitor = await redis.raw().monitor();
  const sent: string[] = [];
  const ranByScripts: string[] = [];
  const sentinel = `sentinel-${randomUUID()}`;
  let seen = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[1] === sentinel) seen = true;
    else if (!seen) (source === 'lua' ? ranByScripts : sent).push(String(args[0]).toLowerCase());
  });
  try {
    // MONITOR is live once it reports a command sent after it started.
    await eventually(async () => (await redis.raw().echo(`ready-${sentinel}`), sent.includes('echo')), 2_000, 'MONITOR started');
    sent.length = 0;
    ranByScripts.length = 0;
    await run();
    await redis.raw().echo(sentinel);
    await eventually(() => seen, 2_000, 'the sentinel seen by MONITOR');
    return { sent, ranByScripts };
  } finally {
    monitor.disconnect();
  }
}

// Once Redis knows the scripts (a first call after a start sends the script itself).
describe('RedisStore round trips on the request path', () => {
  it(
    'admitting a client that logged in (GET /auth/check with a cookie) is one round trip: ban state and recent login in ' +
      'one script; admissions of the same client while it is on its way share it',
    async () => {
      const clock = new FakeClock();
      const store = await redis.open({ prefix: `round-trips-${randomUUID()}:`, clock });
      const bans = new BanPolicy(store, clock);
      await bans.recordSuccess(CLIENT);
      // Redis learns a script at its first use (EVALSHA, then EVAL once): every later call is one EVALSHA.
      await bans.admit(CLIENT);
      let admissions: unknown[] = [];
      expect(await commandsSentDuring(async () => (admissions = [await bans.admit(CLIENT)]))).toEqual(['evalsha']);
      // The dashboard's polls from several tabs at once: one read answers them all.
      expect(await commandsSentDuring(async () => (admissions = await Promise.all([1, 2, 3, 4].map(() => bans.admit(CLIENT)))))).toEqual([
        'evalsha',
      ]);
      expect(admissions).toEqual(Array.from({ length: 4 }, () => ({ kind: 'open', hold: null })));
      // Nothing is kept past the answer: the next admission reads Redis again.
      expect(await commandsSentDuring(async () => bans.admit(CLIENT))).toEqual(['evalsha']);
    },
  );

  it('a failure recorded by this instance or another is seen at the next admission', async () => {
    const clock = new FakeClock();
    const prefix = `round-trips-${randomUUID()}:`;
    const [here, elsewhere] = [await redis.open({ prefix, clock }), await redis.open({ prefix, clock })];
    const [bansHere, bansElsewhere] = [new BanPolicy(here, clock, { threshold: 1 }), new BanPolicy(elsewhere, clock, { threshold: 1 })];
    await bansHere.recordSuccess(CLIENT);
    expect(await bansHere.admit(CLIENT)).toEqual({ kind: 'open', hold: null });
    await bansElsewhere.recordFailure(CLIENT);
    expect(await bansHere.admit(CLIENT)).toMatchObject({ kind: 'banned' });
    await bansHere.recordSuccess('198.51.100.2');
    await bansHere.admit('198.51.100.2');
    await bansHere.recordFailure('198.51.100.2');
    expect(await bansHere.admit('198.51.100.2')).toMatchObject({ kind: 'banned' });
  });

  it('a banned client is refused after one round trip too', async () => {
    const clock = new FakeClock();
    const store = await redis.open({ prefix: `round-trips-${randomUUID()}:`, clock });
    const bans = new BanPolicy(store, clock, { globalFailureBudget: 0 });
    for (let i = 0; i < 5; i++) await bans.recordFailure(CLIENT);
    await bans.admit(CLIENT);
    let admission: unknown;
    expect(await commandsSentDuring(async () => (admission = await bans.admit(CLIENT)))).toEqual(['evalsha']);
    expect(admission).toMatchObject({ kind: 'banned' });
  });

  it(
    'recording a login (POST /auth/verify with the right token) is one round trip: the failures cleared and the login remembered in ' +
      'one script',
    async () => {
      const clock = new FakeClock();
      const store = await redis.open({ prefix: `round-trips-${randomUUID()}:`, clock });
      const bans = new BanPolicy(store, clock);
      await bans.recordSuccess('198.51.100.1');
      await bans.recordFailure(CLIENT);
      expect(await commandsSentDuring(() => bans.recordSuccess(CLIENT))).toEqual(['evalsha']);
      expect(await store.attempts.readClient('203.0.113.7')).toEqual({ attempts: null, loggedInRecently: true });
    },
  );

  it(
    'the login of a client with no failure (a renewed one, as a user logging in again) runs no write in Redis but the login: ' +
      'its ZADD and TTL, after the two reads that find nothing to forget',
    async () => {
      const clock = new FakeClock();
      const store = await redis.open({ prefix: `round-trips-${randomUUID()}:`, clock });
      const bans = new BanPolicy(store, clock);
      await bans.recordSuccess(CLIENT);
      clock.advance(1_000);
      const { sent, ranByScripts } = await commandsDuring(() => bans.recordSuccess(CLIENT));
      expect(sent).toEqual(['evalsha']);
      // TIME is the deadline's (lua/script-deadline.ts).
      expect(ranByScripts).toEqual(['time', 'zadd', 'pexpire', 'zscore', 'zscore']);
      expect(await store.attempts.readClient(CLIENT)).toEqual({ attempts: null, loggedInRecently: true });
    },
  );

  it(
    'admitting a client that has not logged in lately, on one Redis, sends three scripts: its state, its place in the ' +
      "budget, and one read of the budget's four shards (one script per shard on a cluster)",
    async () => {
      const clock = new FakeClock();
      const store = await redis.open({ prefix: `round-trips-${randomUUID()}:`, clock });
      const bans = new BanPolicy(store, clock);
      await bans.recordFailure('198.51.100.3');
      await bans.admit('198.51.100.4');
      let admission: unknown;
      expect(await commandsSentDuring(async () => (admission = await bans.admit(CLIENT)))).toEqual(['evalsha', 'evalsha', 'evalsha']);
      expect(admission).toMatchObject({ kind: 'open', hold: expect.any(Number) });
      expect(await bans.budget()).toMatchObject({ failures: 3 });
    },
  );
});
