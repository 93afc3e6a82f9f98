import { describe, expect, it } from 'vitest';
import { BanPolicy, DEFAULT_BAN_POLICY } from './ban-policy.js';
import { MemoryStore } from '../../memory/memory-store.js';
import { createCoreHarness } from '../../testing/core-harness.js';
import { FakeClock } from '../../testing/fake-clock.js';

const IP = '203.0.113.7';
const SECOND = 1000;
const MINUTE = 60 * SECOND;

function ipv4(n: number, first = 10): string {
  return `${first}.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

describe('BanPolicy: counting (Client IP ban table)', () => {
  it('uses the limits of the specification', () => {
    expect(DEFAULT_BAN_POLICY).toEqual({
      windowMs: 5 * MINUTE,
      threshold: 5,
      banMs: 10 * MINUTE,
      reminderAt: 2,
      exempt: [],
      sessionLifetimeMs: 7 * 24 * 60 * MINUTE,
      globalFailureBudget: 100,
    });
  });

  it('failures 1..4 count down; a reminder comes when 2 or fewer attempts remain', async () => {
    const { bans, clock } = createCoreHarness();
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push(await bans.recordFailure(IP));
      clock.advanceSeconds(10);
    }
    expect(outcomes).toEqual([
      { banned: false, remainingAttempts: 4, remind: false, counted: true },
      { banned: false, remainingAttempts: 3, remind: false, counted: true },
      { banned: false, remainingAttempts: 2, remind: true, counted: true },
      { banned: false, remainingAttempts: 1, remind: true, counted: true },
    ]);
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('an address that was never seen is not banned', async () => {
    const { bans } = createCoreHarness();
    expect(await bans.status(IP)).toEqual({ banned: false });
  });
});

describe('BanPolicy: counting -> banned (5 failures within 5 minutes)', () => {
  /** Failures at 0:00, 1:00, 2:00 and 3:00; returns the time of the first. */
  async function fourFailures(bans: BanPolicy, clock: FakeClock): Promise<number> {
    const start = clock.now();
    for (let minute = 0; minute < 4; minute++) {
      clock.set(start + minute * MINUTE);
      await bans.recordFailure(IP);
    }
    return start;
  }

  it('the 5th failure 4:59 after the first bans for 10 minutes (429)', async () => {
    const { bans, clock } = createCoreHarness();
    const start = await fourFailures(bans, clock);
    clock.set(start + 4 * MINUTE + 59 * SECOND);

    expect(await bans.recordFailure(IP)).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 600 });
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 600 });
  });

  it('the 5th failure 5:01 after the first does not ban: the first left the window', async () => {
    const { bans, clock } = createCoreHarness();
    const start = await fourFailures(bans, clock);
    clock.set(start + 5 * MINUTE + 1 * SECOND);

    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 1, remind: true, counted: true });
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('exactly 5:00 after the first, the first no longer counts', async () => {
    const { bans, clock } = createCoreHarness();
    const start = await fourFailures(bans, clock);
    clock.set(start + 5 * MINUTE - 1);
    expect(await bans.status(IP)).toEqual({ banned: false });
    clock.set(start + 5 * MINUTE);
    expect(await bans.recordFailure(IP)).toMatchObject({ banned: false, remainingAttempts: 1 });
  });

  it('four failures at once, the 5th 5:00 later: all four left the window', async () => {
    const { bans, clock } = createCoreHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure(IP);
    clock.advance(5 * MINUTE);
    expect(await bans.recordFailure(IP)).toMatchObject({ banned: false, remainingAttempts: 4 });
  });

  it('the window slides: failures still inside it keep counting after the oldest leaves', async () => {
    const { bans, clock } = createCoreHarness();
    const start = await fourFailures(bans, clock);
    clock.set(start + 5 * MINUTE + SECOND);

    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 1, remind: true, counted: true });
    clock.advance(29 * SECOND); // 5:30: 1:00, 2:00, 3:00, 5:01 and now are inside the window
    expect(await bans.recordFailure(IP)).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 600 });
  });

  it('failures spread wider than the window never ban', async () => {
    const { bans, clock } = createCoreHarness();
    for (let i = 0; i < 50; i++) {
      const outcome = await bans.recordFailure(IP);
      expect(outcome.banned).toBe(false);
      clock.advance(76 * SECOND); // 4 failures per 5 minutes at most
    }
  });

  it('5 concurrent failures are all counted', async () => {
    const { bans } = createCoreHarness();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => bans.recordFailure(IP)));
    expect(outcomes.map((outcome) => outcome.banned)).toEqual([false, false, false, false, true]);
    expect(await bans.status(IP)).toMatchObject({ banned: true });
  });
});

describe('BanPolicy: banned -> no ban after 10 minutes', () => {
  async function bannedHarness() {
    const harness = createCoreHarness();
    for (let i = 0; i < 5; i++) await harness.bans.recordFailure(IP);
    return harness;
  }

  it('the ban is still on at 9:59 and lifted at 10:00', async () => {
    const { bans, clock } = await bannedHarness();
    clock.advance(9 * MINUTE + 59 * SECOND);
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 1 });
    clock.advance(SECOND);
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('after the ban the count starts from zero', async () => {
    const { bans, clock } = await bannedHarness();
    clock.advance(10 * MINUTE);
    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 4, remind: false, counted: true });
  });

  it('failures during the ban stay banned without extending it', async () => {
    const { bans, clock } = await bannedHarness();
    clock.advance(3 * MINUTE);
    expect(await bans.recordFailure(IP)).toEqual({ banned: true, justBanned: false, retryAfterSeconds: 420 });
    expect(await bans.recordFailure(IP, { cookie: 'guess' })).toEqual({ banned: true, justBanned: false, retryAfterSeconds: 420 });
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 420 });
    clock.advance(7 * MINUTE);
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('retryAfterSeconds rounds up partial seconds', async () => {
    const { bans, clock } = await bannedHarness();
    clock.advance(1);
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 600 });
    clock.advance(10 * MINUTE - 2);
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 1 });
  });

  it('a success during the ban does not lift it (only time does)', async () => {
    const { bans, clock } = await bannedHarness();
    await bans.recordSuccess(IP);
    expect(await bans.status(IP)).toEqual({ banned: true, retryAfterSeconds: 600 });
    clock.advance(10 * MINUTE);
    expect(await bans.status(IP)).toEqual({ banned: false });
  });
});

describe('BanPolicy: counting -> count 0 on success', () => {
  it('a success clears the count', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure(IP);
    await bans.recordSuccess(IP);
    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 4, remind: false, counted: true });
  });

  it('a success from an unknown address is harmless', async () => {
    const { bans, store } = createCoreHarness();
    await bans.recordSuccess(IP);
    expect(store.size.attempts).toBe(0);
  });

  it('a success clears only its own client', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure(IP);
    await bans.recordSuccess('198.51.100.1');
    expect(await bans.recordFailure(IP)).toMatchObject({ banned: true, justBanned: true });
  });
});

describe('BanPolicy: client keys (docs/decisions/0003-client-address.md)', () => {
  it('IPv6 addresses in one /64 share a count', async () => {
    const { bans } = createCoreHarness();
    const sameNetwork = [
      '2001:db8:1:2::1',
      '2001:db8:1:2::2',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0003',
      '[2001:db8:1:2::4]',
    ];
    const outcomes = [];
    for (const address of sameNetwork) outcomes.push(await bans.recordFailure(address));
    expect(outcomes.at(-1)).toMatchObject({ banned: true, justBanned: true });
    expect(await bans.status('2001:db8:1:2:abcd::1')).toMatchObject({ banned: true });
  });

  it('IPv6 addresses in different /64s are counted apart', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure('2001:db8:1:2::1');
    expect(await bans.recordFailure('2001:db8:1:3::1')).toMatchObject({ banned: false, remainingAttempts: 4 });
    expect(await bans.recordFailure('2001:db8:1:2::1')).toMatchObject({ banned: true });
    expect(await bans.status('2001:db8:1:3::1')).toEqual({ banned: false });
  });

  it('IPv4-mapped IPv6 counts with the IPv4 address', async () => {
    const { bans } = createCoreHarness();
    await bans.recordFailure('::ffff:1.2.3.4');
    await bans.recordFailure('::FFFF:1.2.3.4');
    await bans.recordFailure('[::ffff:1.2.3.4]');
    await bans.recordFailure('::ffff:102:304');
    expect(await bans.recordFailure('1.2.3.4')).toMatchObject({ banned: true, justBanned: true });
    expect(await bans.status('::ffff:1.2.3.4')).toMatchObject({ banned: true });
    expect(await bans.status('1.2.3.5')).toEqual({ banned: false });
  });

  it('distinct IPv4 addresses are counted apart', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure('192.0.2.1');
    expect(await bans.recordFailure('192.0.2.2')).toMatchObject({ remainingAttempts: 4 });
  });

  it('an address that does not parse (a Unix socket) is its own client', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 5; i++) await bans.recordFailure('unix:/run/webui.sock');
    expect(await bans.status('unix:/run/webui.sock')).toMatchObject({ banned: true });
    expect(await bans.status('unix:/run/other.sock')).toEqual({ banned: false });
  });
});

describe('BanPolicy: guessing through the cookie (docs/decisions/0004-guessing-through-the-cookie.md)', () => {
  it('distinct wrong cookie values each count', async () => {
    const { bans } = createCoreHarness();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await bans.recordFailure(IP, { cookie: `guess-${i}` }));
    expect(outcomes.slice(0, 4).map((outcome) => (outcome.banned ? -1 : outcome.remainingAttempts))).toEqual([4, 3, 2, 1]);
    expect(outcomes[4]).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 600 });
  });

  it('the same stale cookie polled 100 times counts once per window and never bans', async () => {
    const { bans, clock } = createCoreHarness();
    const first = await bans.recordFailure(IP, { cookie: 'stale-token' });
    expect(first).toEqual({ banned: false, remainingAttempts: 4, remind: false, counted: true });
    for (let i = 1; i < 100; i++) {
      clock.advanceSeconds(1);
      expect(await bans.recordFailure(IP, { cookie: 'stale-token' })).toEqual({
        banned: false,
        remainingAttempts: 4,
        remind: false,
        counted: false,
        reason: 'repeated_cookie',
      });
    }
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('the same stale cookie counts again once its failure has left the window', async () => {
    const { bans, clock } = createCoreHarness();
    await bans.recordFailure(IP, { cookie: 'stale-token' });
    clock.advance(5 * MINUTE - 1);
    expect(await bans.recordFailure(IP, { cookie: 'stale-token' })).toMatchObject({ counted: false });
    clock.advance(1);
    expect(await bans.recordFailure(IP, { cookie: 'stale-token' })).toEqual({
      banned: false,
      remainingAttempts: 4,
      remind: false,
      counted: true,
    });
  });

  it('a stale cookie polled every second for an hour never bans its owner', async () => {
    const { bans, clock } = createCoreHarness();
    for (let i = 0; i < 3600; i++) {
      const outcome = await bans.recordFailure(IP, { cookie: 'stale-token' });
      expect(outcome.banned).toBe(false);
      clock.advanceSeconds(1);
    }
  });

  it('a stale cookie still counts once alongside plain guesses', async () => {
    const { bans } = createCoreHarness();
    for (let i = 0; i < 3; i++) await bans.recordFailure(IP);
    expect(await bans.recordFailure(IP, { cookie: 'stale-token' })).toMatchObject({ remainingAttempts: 1, counted: true });
    expect(await bans.recordFailure(IP, { cookie: 'stale-token' })).toMatchObject({ remainingAttempts: 1, counted: false });
    expect(await bans.recordFailure(IP)).toMatchObject({ banned: true, justBanned: true });
  });
});

describe('BanPolicy: bounded memory (docs/decisions/0014-bounded-memory.md)', () => {
  it(
    '5000 distinct addresses keep at most maxAttemptKeys records; a fresh client then finds the counts full and is turned away ' +
      'before its guess is checked, spending the global budget; a client that logged in, or one already counting, is not',
    async () => {
      const { bans, store, clock } = createCoreHarness({ limits: { maxAttemptKeys: 1000 }, banPolicy: { globalFailureBudget: 100_000 } });
      await bans.recordSuccess('192.0.2.1');
      await bans.recordFailure('192.0.2.2');
      for (let i = 0; i < 5000; i++) await bans.recordFailure(ipv4(i));
      expect(store.size.attempts).toBeLessThanOrEqual(1000);

      const spent = (await bans.budget()).failures;
      expect(await bans.admit(IP)).toEqual({ kind: 'throttled', retryAfterSeconds: 300, hold: null });
      expect((await bans.budget()).failures).toBe(spent + 1);
      expect(await bans.admit('192.0.2.1')).toEqual({ kind: 'open', hold: null });
      expect((await bans.admit('192.0.2.2')).kind).toBe('open');
      // Room again once the counts leave the window.
      clock.advance(5 * MINUTE);
      expect((await bans.admit(IP)).kind).toBe('open');
    },
  );

  it('with the global budget off, a full store still turns a fresh client away', async () => {
    const { bans } = createCoreHarness({ limits: { maxAttemptKeys: 10 }, banPolicy: { globalFailureBudget: 0 } });
    for (let i = 0; i < 10; i++) await bans.recordFailure(ipv4(i));
    expect(await bans.admit(IP)).toMatchObject({ kind: 'throttled', hold: null });
  });

  it('5000 distinct IPv6 /64s are bounded the same way', async () => {
    const { bans, store } = createCoreHarness({ limits: { maxAttemptKeys: 1000 } });
    for (let i = 0; i < 5000; i++) await bans.recordFailure(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`);
    expect(store.size.attempts).toBeLessThanOrEqual(1000);
  });

  it('bans survive eviction by a flood of single failures', async () => {
    const { bans, store, clock } = createCoreHarness({ limits: { maxAttemptKeys: 1000 } });
    const attackers = ['198.51.100.1', '198.51.100.2', '2001:db8:dead:beef::1'];
    for (const attacker of attackers) for (let i = 0; i < 5; i++) await bans.recordFailure(attacker);

    for (let i = 0; i < 5000; i++) await bans.recordFailure(ipv4(i));

    // The counts are capped; the running bans are outside the cap.
    expect(store.size.attempts).toBe(1000 + attackers.length);
    for (const attacker of attackers) expect(await bans.status(attacker), attacker).toMatchObject({ banned: true });
    clock.advance(10 * MINUTE);
    for (const attacker of attackers) expect(await bans.status(attacker), attacker).toEqual({ banned: false });
  });

  it('records of clients that stopped failing go away with their window', async () => {
    const { bans, store, clock } = createCoreHarness();
    for (let i = 0; i < 100; i++) await bans.recordFailure(ipv4(i));
    expect(store.size.attempts).toBe(100);
    clock.advance(5 * MINUTE);
    store.sweep();
    expect(store.size.attempts).toBe(0);
  });
});

describe('BanPolicy options', () => {
  it('threshold, window, ban length and reminder are configurable', async () => {
    const clock = new FakeClock(0);
    const bans = new BanPolicy(new MemoryStore(clock), clock, { threshold: 3, windowMs: 10 * SECOND, banMs: 90_500, reminderAt: 1 });
    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 2, remind: false, counted: true });
    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 1, remind: true, counted: true });
    expect(await bans.recordFailure(IP)).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 91 });
  });

  it('a failing store rejects the call without blocking the next ones', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock);
    const bans = new BanPolicy(store, clock);
    const countFailure = store.attempts.countFailure.bind(store.attempts);
    let fail = true;
    store.attempts.countFailure = async (key, failure) => {
      if (fail) throw new Error('store down');
      return countFailure(key, failure);
    };
    await expect(bans.recordFailure(IP)).rejects.toThrow('store down');
    fail = false;
    expect(await bans.recordFailure(IP)).toMatchObject({ remainingAttempts: 4 });
  });
});
