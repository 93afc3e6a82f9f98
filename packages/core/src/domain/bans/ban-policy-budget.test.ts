import { describe, expect, it } from 'vitest';
import type { Admission, BanPolicy, BanPolicyOptions } from './ban-policy.js';
import { budgetBucket, oldestLiveBucket } from './global-failure-budget.js';
import type { Store } from '../../ports/store.js';
import { createCoreHarness } from '../../testing/core-harness.js';
import type { FakeClock } from '../../testing/fake-clock.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const BUDGET = 10;
const LOGGED_IN = '192.0.2.50';

/** A distinct address for every n below 65536, none of them LOGGED_IN. */
const address = (n: number): string => `198.51.${n >> 8}.${n & 255}`;

function budgetHarness(banPolicy: Partial<BanPolicyOptions> = {}) {
  return createCoreHarness({ banPolicy: { globalFailureBudget: BUDGET, ...banPolicy } });
}

/** Failures in the budget's hour, as the store holds them. */
async function spent(store: Store, clock: FakeClock): Promise<number> {
  let total = 0;
  for (const { count } of await store.budget.readGlobalFailures(oldestLiveBucket(clock.now()))) total += count;
  return total;
}

/** One guess as the HTTP layer makes it: admitted first, then recorded as a failure with its hold. */
async function guess(bans: BanPolicy, ip: string): Promise<Admission> {
  const admission = await bans.admit(ip);
  if (admission.kind === 'open' || admission.kind === 'delayed') await bans.recordFailure(ip, { hold: admission.hold });
  return admission;
}

/** `count` guesses from fresh addresses starting at `from`. */
async function guesses(bans: BanPolicy, count: number, from = 0): Promise<Admission[]> {
  const admissions: Admission[] = [];
  for (let n = from; n < from + count; n++) admissions.push(await guess(bans, address(n)));
  return admissions;
}

const kinds = (admissions: readonly Admission[]) => admissions.map((admission) => admission.kind);

describe('BanPolicy: the global failure budget (budget 10 per hour)', () => {
  it('the first 10 guesses are open; the 11th attempt waits 100 ms, and each further one twice as long', async () => {
    const { bans, clock } = budgetHarness();
    const bucket = budgetBucket(clock.now());
    expect(await guesses(bans, BUDGET)).toEqual(Array.from({ length: BUDGET }, () => ({ kind: 'open', hold: bucket })));
    const beyond = await guesses(bans, 6, BUDGET);
    expect(beyond).toEqual([100, 200, 400, 800, 1600, 3200].map((delayMs) => ({ kind: 'delayed', delayMs, hold: bucket })));
  });

  it('failures recorded without an admission count the same: after 10 of them the next admit is delayed 100 ms', async () => {
    const { bans } = budgetHarness();
    for (let n = 0; n < BUDGET; n++) expect(await bans.recordFailure(address(n))).toMatchObject({ counted: true });
    expect(await bans.admit(address(BUDGET))).toMatchObject({ kind: 'delayed', delayMs: 100 });
  });

  it("a counted failure keeps its admission's place: each guess is counted once", async () => {
    const { bans, store, clock } = budgetHarness();
    await guesses(bans, 3);
    expect(await spent(store, clock)).toBe(3);
    const admission = await bans.admit(address(3));
    expect(await spent(store, clock)).toBe(4);
    await bans.recordFailure(address(3), { hold: admission.hold });
    expect(await spent(store, clock)).toBe(4);
  });

  it('parallel admits are counted as they arrive: 30 at once, before any failure is recorded, cannot slip past', async () => {
    const { bans, store, clock } = budgetHarness();
    const admissions = await Promise.all(Array.from({ length: 30 }, (_, n) => bans.admit(address(n))));
    const open = admissions.filter((admission) => admission.kind === 'open');
    const delayed = admissions.filter((admission) => admission.kind === 'delayed');
    const throttled = admissions.filter((admission) => admission.kind === 'throttled');
    expect(open.length + delayed.length + throttled.length).toBe(30);
    expect(open.length).toBeLessThanOrEqual(BUDGET);
    expect(open.length + delayed.length).toBeLessThanOrEqual(2 * BUDGET);
    for (const admission of throttled) expect(admission.hold).toBeNull();
    // Every admitted attempt holds its place at once; the refused ones gave theirs back.
    expect(await spent(store, clock)).toBe(open.length + delayed.length);
  });

  it('past twice the budget an admit is throttled, with Retry-After until the failures leave the hour', async () => {
    const { bans, clock } = budgetHarness();
    const t0 = clock.now();
    clock.advance(30 * SECOND);
    expect(kinds(await guesses(bans, 2 * BUDGET))).toEqual([
      ...Array<string>(BUDGET).fill('open'),
      ...Array<string>(BUDGET).fill('delayed'),
    ]);
    expect(await bans.admit(address(100))).toEqual({ kind: 'throttled', retryAfterSeconds: 3570, hold: null });
    clock.set(t0 + 10 * MINUTE);
    expect(await bans.admit(address(101))).toEqual({ kind: 'throttled', retryAfterSeconds: 50 * 60, hold: null });
  });

  it('a throttled or banned admit spends none of the budget', async () => {
    const { bans, store, clock } = budgetHarness();
    for (let i = 0; i < 5; i++) await bans.recordFailure('203.0.113.7');
    await guesses(bans, 2 * BUDGET);
    const before = await spent(store, clock);
    expect(before).toBeGreaterThanOrEqual(2 * BUDGET);
    for (let n = 0; n < 50; n++) expect(await bans.admit(address(100 + n))).toMatchObject({ kind: 'throttled', hold: null });
    expect(await bans.admit('203.0.113.7')).toEqual({ kind: 'banned', retryAfterSeconds: 600, hold: null });
    expect(await spent(store, clock)).toBe(before);
  });

  it('the failure that starts a ban is a real guess: it stays in the budget', async () => {
    const { bans, store, clock } = budgetHarness();
    const admissions = [];
    for (let i = 0; i < 5; i++) admissions.push(await bans.admit('203.0.113.7'));
    const outcomes = [];
    for (const admission of admissions) outcomes.push(await bans.recordFailure('203.0.113.7', { hold: admission.hold }));
    expect(outcomes[4]).toMatchObject({ banned: true, justBanned: true });
    expect(await spent(store, clock)).toBe(5);
    // Recorded without an admission it is added, like any counted failure.
    for (let i = 0; i < 5; i++) await bans.recordFailure('203.0.113.8');
    expect(await spent(store, clock)).toBe(10);
    // A failure during the ban was refused, not compared: it adds nothing.
    expect(await bans.recordFailure('203.0.113.8')).toMatchObject({ banned: true, justBanned: false });
    expect(await spent(store, clock)).toBe(10);
  });

  it('recordSuccess gives the hold back', async () => {
    const { bans, store, clock } = budgetHarness();
    await guesses(bans, BUDGET);
    const admission = await bans.admit(LOGGED_IN);
    expect(admission).toMatchObject({ kind: 'delayed', delayMs: 100 });
    expect(await spent(store, clock)).toBe(BUDGET + 1);
    await bans.recordSuccess(LOGGED_IN, admission);
    expect(await spent(store, clock)).toBe(BUDGET);
    expect(await bans.admit(address(500))).toMatchObject({ kind: 'delayed', delayMs: 100 });
  });

  it('an uncounted failure gives the hold back: a repeated cookie, a stale session', async () => {
    const { bans, tokens, store, clock } = createCoreHarness({
      record: { accessToken: 'Old-Token-Before-Rotation-1!', tokenSource: 'configured', firstSetupCompleted: true },
      banPolicy: { globalFailureBudget: BUDGET },
    });
    const first = await bans.admit(address(1));
    await bans.recordFailure(address(1), { cookie: 'guess', presented: ['guess'], hold: first.hold });
    expect(await spent(store, clock)).toBe(1);
    const repeated = await bans.admit(address(1));
    expect(await bans.recordFailure(address(1), { cookie: 'guess', presented: ['guess'], hold: repeated.hold })).toMatchObject({
      reason: 'repeated_cookie',
    });
    expect(await spent(store, clock)).toBe(1);

    await tokens.regenerate();
    const stale = await bans.admit(address(2));
    expect(stale.hold).not.toBeNull();
    const old = 'Old-Token-Before-Rotation-1!';
    expect(await bans.recordFailure(address(2), { cookie: old, presented: [old], hold: stale.hold })).toMatchObject({
      reason: 'stale_session',
    });
    expect(await spent(store, clock)).toBe(1);
  });

  it('a client that logged in within sessionLifetimeMs is admitted open while the budget is spent, and not after', async () => {
    const { bans, clock } = budgetHarness({ sessionLifetimeMs: 30 * MINUTE });
    const t0 = clock.now();
    await bans.recordSuccess(LOGGED_IN, await bans.admit(LOGGED_IN));
    clock.set(t0 + 29 * MINUTE);
    await guesses(bans, 2 * BUDGET);
    expect(await bans.admit(address(100))).toMatchObject({ kind: 'throttled' });
    expect(await bans.admit(LOGGED_IN)).toEqual({ kind: 'open', hold: null });
    clock.set(t0 + 30 * MINUTE - 1);
    expect(await bans.admit(LOGGED_IN)).toEqual({ kind: 'open', hold: null });
    clock.set(t0 + 30 * MINUTE + 1);
    expect(await bans.admit(LOGGED_IN)).toMatchObject({ kind: 'throttled', hold: null });
  });

  it('the lifetime counts from the latest login, not the first', async () => {
    const { bans, clock } = budgetHarness({ sessionLifetimeMs: 30 * MINUTE });
    const t0 = clock.now();
    await bans.recordSuccess(LOGGED_IN, await bans.admit(LOGGED_IN));
    clock.set(t0 + 20 * MINUTE);
    await bans.recordSuccess(LOGGED_IN, await bans.admit(LOGGED_IN));
    clock.set(t0 + 35 * MINUTE);
    await guesses(bans, 2 * BUDGET);
    expect(await bans.admit(LOGGED_IN)).toEqual({ kind: 'open', hold: null });
    clock.set(t0 + 50 * MINUTE - 1);
    expect(await bans.admit(LOGGED_IN)).toEqual({ kind: 'open', hold: null });
    clock.set(t0 + 50 * MINUTE + 1);
    expect(await bans.admit(LOGGED_IN)).toMatchObject({ kind: 'throttled' });
  });

  it('a login is remembered per IPv6 /64, like every count', async () => {
    const { bans } = budgetHarness();
    await bans.recordSuccess('2001:db8:1:2::1', await bans.admit('2001:db8:1:2::1'));
    await guesses(bans, 2 * BUDGET);
    expect(await bans.admit('2001:db8:1:2::99')).toEqual({ kind: 'open', hold: null });
    expect(await bans.admit('2001:db8:1:3::1')).toMatchObject({ kind: 'throttled' });
  });

  it('failures leave the budget when their minute bucket is 60 minutes old', async () => {
    const { bans, store, clock } = budgetHarness();
    const t0 = clock.now();
    clock.set(t0 + 30 * SECOND);
    await guesses(bans, 2 * BUDGET);
    clock.set(t0 + 60 * MINUTE - 1);
    expect(await bans.admit(address(100))).toEqual({ kind: 'throttled', retryAfterSeconds: 1, hold: null });
    expect(await spent(store, clock)).toBe(2 * BUDGET);
    clock.set(t0 + 60 * MINUTE);
    expect(await spent(store, clock)).toBe(0);
    expect(await bans.admit(address(100))).toEqual({ kind: 'open', hold: budgetBucket(t0 + 60 * MINUTE) });
  });

  it('buckets leave one minute at a time: Retry-After names the minute that brings the count back under the cap', async () => {
    const { bans, clock } = budgetHarness();
    const t0 = clock.now();
    await guesses(bans, 5);
    clock.set(t0 + 5 * MINUTE);
    await guesses(bans, 15, 5);
    // 20 spent: the next is refused until the first five leave at t0 + 60 min.
    expect(await bans.admit(address(100))).toEqual({ kind: 'throttled', retryAfterSeconds: 55 * 60, hold: null });
    clock.set(t0 + 60 * MINUTE);
    expect(await bans.admit(address(100))).toMatchObject({ kind: 'delayed', delayMs: 3200 });
  });

  it('a budget of 0 admits everything open and keeps no count', async () => {
    const { bans, store, clock } = budgetHarness({ globalFailureBudget: 0 });
    expect(kinds(await guesses(bans, 50))).toEqual(Array<string>(50).fill('open'));
    expect(await bans.admit(address(100))).toEqual({ kind: 'open', hold: null });
    expect(await spent(store, clock)).toBe(0);
    await bans.recordSuccess(LOGGED_IN);
    expect((await store.attempts.readClient(LOGGED_IN)).loggedInRecently).toBe(false);
  });
});
