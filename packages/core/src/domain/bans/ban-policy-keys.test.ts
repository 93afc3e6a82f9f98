import { describe, expect, it } from 'vitest';
import type { BanPolicy } from './ban-policy.js';
import { oldestLiveBucket } from './global-failure-budget.js';
import type { Store } from '../../ports/store.js';
import { err } from '../result.js';
import { createCoreHarness } from '../../testing/core-harness.js';
import type { FakeClock } from '../../testing/fake-clock.js';

const MINUTE = 60_000;
const BUDGET = 10;
const TOKEN = 'Access-Token-For-Key-Tests-1!';
const KEY_ADDRESS = '203.0.113.7';

/** A distinct address for every n below 65536, none of them KEY_ADDRESS. */
const address = (n: number): string => `198.51.${n >> 8}.${n & 255}`;

async function keyHarness() {
  const harness = createCoreHarness({
    record: { accessToken: TOKEN, tokenSource: 'configured', firstSetupCompleted: true },
    banPolicy: { globalFailureBudget: BUDGET },
  });
  const created = await harness.keys.create({ name: 'deploy', scope: 'admin', lifetimeMs: 30 * MINUTE });
  if (!created.ok) throw new Error(created.error);
  return { ...harness, key: created.value.key };
}

async function spent(store: Store, clock: FakeClock): Promise<number> {
  let total = 0;
  for (const { count } of await store.budget.readGlobalFailures(oldestLiveBucket(clock.now()))) total += count;
  return total;
}

/** Spends twice the budget from fresh addresses: every new client is turned away after it. */
async function exhaust(bans: BanPolicy): Promise<void> {
  for (let n = 0; n <= 2 * BUDGET; n++) await bans.recordFailure(address(n));
  expect(await bans.admit(address(999))).toMatchObject({ kind: 'throttled' });
}

describe('BanPolicy and API keys: a key is not a login of the access token (issue 31, item 2)', () => {
  it('a key used between token guesses neither clears the count nor marks the address as logged in', async () => {
    const { bans, store, key } = await keyHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure(KEY_ADDRESS, { hold: (await bans.admit(KEY_ADDRESS)).hold });
    const admission = await bans.admit(KEY_ADDRESS, { secret: key });
    await bans.recordSuccess(KEY_ADDRESS, admission, { credential: 'key' });
    expect((await store.attempts.readClient(KEY_ADDRESS)).loggedInRecently).toBe(false);
    expect((await store.attempts.readAttempts(KEY_ADDRESS))?.failures).toHaveLength(4);
    expect(await bans.recordFailure(KEY_ADDRESS, { hold: (await bans.admit(KEY_ADDRESS)).hold })).toMatchObject({
      banned: true,
      justBanned: true,
    });
  });

  it('a key success that held a place in the budget gives it back, and nothing more', async () => {
    const { bans, store, clock } = await keyHarness();
    await bans.recordFailure(KEY_ADDRESS);
    const admission = await bans.admit(KEY_ADDRESS);
    expect(await spent(store, clock)).toBe(2);
    await bans.recordSuccess(KEY_ADDRESS, admission, { credential: 'key' });
    expect(await spent(store, clock)).toBe(1);
    expect((await store.attempts.readAttempts(KEY_ADDRESS))?.failures).toHaveLength(1);
    expect((await store.attempts.readClient(KEY_ADDRESS)).loggedInRecently).toBe(false);
  });

  it('the access token still clears the count and marks a recent login', async () => {
    const { bans, store } = await keyHarness();
    await bans.recordFailure(KEY_ADDRESS);
    await bans.recordSuccess(KEY_ADDRESS, await bans.admit(KEY_ADDRESS, { secret: TOKEN }), { credential: 'token' });
    expect(await store.attempts.readAttempts(KEY_ADDRESS)).toBeNull();
    expect((await store.attempts.readClient(KEY_ADDRESS)).loggedInRecently).toBe(true);
  });
});

describe('BanPolicy.lift for an API caller: its own client key is refused (issue 31, item 2)', () => {
  const covering = [KEY_ADDRESS, 'all', 'ALL', '203.0.113.0/24', '0.0.0.0/0', '203.0.113.7/32'];
  it.each(covering)('a lift of %s by 203.0.113.7 is refused own_ban and changes nothing', async (target) => {
    const { bans, store } = await keyHarness();
    for (let i = 0; i < 4; i++) await bans.recordFailure(KEY_ADDRESS);
    await bans.recordFailure(address(1));
    const before = await store.attempts.listAttempts();
    expect(await bans.lift(target, { caller: KEY_ADDRESS })).toEqual(err('own_ban'));
    expect(await store.attempts.listAttempts()).toEqual(before);
  });

  it('an IPv6 caller is refused for its /64, any address in it and a wider network', async () => {
    const { bans } = await keyHarness();
    for (const target of ['2001:db8:1:2::/64', '2001:db8:1:2::99', '2001:db8::/32'])
      expect(await bans.lift(target, { caller: '2001:db8:1:2::5' })).toEqual(err('own_ban'));
    expect(await bans.lift('2001:db8:1:3::/64', { caller: '2001:db8:1:2::5' })).toMatchObject({ ok: true });
  });

  it('even with nothing to lift: the answer does not depend on what the store holds', async () => {
    const { bans } = await keyHarness();
    expect(await bans.lift(KEY_ADDRESS, { caller: KEY_ADDRESS })).toEqual(err('own_ban'));
  });

  it("another address's ban is lifted as before, and without a caller (the operator's CLI) its own is too", async () => {
    const { bans } = await keyHarness();
    for (let i = 0; i < 5; i++) await bans.recordFailure(address(1));
    for (let i = 0; i < 5; i++) await bans.recordFailure(KEY_ADDRESS);
    expect(await bans.lift(address(1), { caller: KEY_ADDRESS })).toMatchObject({ ok: true, value: [{ key: address(1) }] });
    expect(await bans.lift('203.0.113.8', { caller: KEY_ADDRESS })).toEqual({ ok: true, value: [] });
    expect(await bans.lift('all')).toMatchObject({ ok: true, value: [{ key: KEY_ADDRESS }] });
  });

  it('a malformed target is still invalid_target, before the own-ban rule', async () => {
    const { bans } = await keyHarness();
    expect(await bans.lift('300.1.2.3', { caller: KEY_ADDRESS })).toEqual(err('invalid_target'));
  });
});

describe('BanPolicy.admit and API keys: the global budget never turns a valid key away (issue 31, item 5)', () => {
  it('while the budget is spent a matching key from a new address is admitted at once and spends none of it', async () => {
    const { bans, store, clock, key } = await keyHarness();
    await exhaust(bans);
    const before = await spent(store, clock);
    for (let n = 0; n < 30; n++) expect(await bans.admit(address(500 + n), { secret: key })).toEqual({ kind: 'open', hold: null });
    expect(await spent(store, clock)).toBe(before);
  });

  it('while the budget only delays, a matching key is not delayed', async () => {
    const { bans, key } = await keyHarness();
    for (let n = 0; n < BUDGET; n++) await bans.recordFailure(address(n));
    expect(await bans.admit(address(800))).toMatchObject({ kind: 'delayed' });
    expect(await bans.admit(address(801), { secret: key })).toEqual({ kind: 'open', hold: null });
  });

  it('a wrong key, an expired key, the access token or any other secret still meets the budget', async () => {
    const { bans, clock, key } = await keyHarness();
    await exhaust(bans);
    const wrongKey = `wk_${'A'.repeat(43)}`;
    for (const secret of [wrongKey, TOKEN, `${key}x`, key.slice(0, -1), 'not-a-key'])
      expect(await bans.admit(address(600), { secret })).toMatchObject({ kind: 'throttled' });
    clock.advance(31 * MINUTE);
    // Expired now; the budget's failures are still inside the hour.
    expect(await bans.admit(address(601), { secret: key })).toMatchObject({ kind: 'throttled' });
  });

  it('a banned address stays banned with a valid key', async () => {
    const { bans, key } = await keyHarness();
    for (let i = 0; i < 5; i++) await bans.recordFailure(KEY_ADDRESS);
    expect(await bans.admit(KEY_ADDRESS, { secret: key })).toEqual({ kind: 'banned', retryAfterSeconds: 600, hold: null });
  });

  it('wrong keys still count per address: five ban it', async () => {
    const { bans } = await keyHarness();
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      const secret = `wk_${String(i).repeat(43)}`;
      outcomes.push(
        await bans.recordFailure(KEY_ADDRESS, {
          hold: (await bans.admit(KEY_ADDRESS, { secret })).hold,
          cookie: secret,
          presented: [secret],
        }),
      );
    }
    expect(outcomes[4]).toMatchObject({ banned: true, justBanned: true });
  });
});

describe('BanPolicy.budget and resetBudget: what the operator sees and clears (issue 31, item 5)', () => {
  it('reports the failures of the hour, the limit and what a new client meets, and resetBudget empties it', async () => {
    const { bans, clock } = await keyHarness();
    expect(await bans.budget()).toEqual({ limit: BUDGET, failures: 0, state: 'open', delayMs: null, retryAfterSeconds: null });
    for (let n = 0; n < BUDGET - 1; n++) await bans.recordFailure(address(n));
    expect(await bans.budget()).toMatchObject({ failures: BUDGET - 1, state: 'open' });
    await bans.recordFailure(address(BUDGET));
    expect(await bans.budget()).toEqual({ limit: BUDGET, failures: BUDGET, state: 'delayed', delayMs: 100, retryAfterSeconds: null });
    for (let n = BUDGET; n < 2 * BUDGET; n++) await bans.recordFailure(address(100 + n));
    expect(await bans.budget()).toEqual({
      limit: BUDGET,
      failures: 2 * BUDGET,
      state: 'throttled',
      delayMs: null,
      retryAfterSeconds: 3600,
    });
    clock.advance(10 * MINUTE);
    expect(await bans.budget()).toMatchObject({ state: 'throttled', retryAfterSeconds: 3000 });

    expect(await bans.resetBudget()).toBe(2 * BUDGET);
    expect(await bans.budget()).toEqual({ limit: BUDGET, failures: 0, state: 'open', delayMs: null, retryAfterSeconds: null });
    expect(await bans.resetBudget()).toBe(0);
    // The admitted attempt holds its place until its outcome is recorded.
    expect(await bans.admit(address(999))).toMatchObject({ kind: 'open' });
    expect(await bans.budget()).toMatchObject({ failures: 1 });
  });

  it('a reset leaves bans and failure counts alone', async () => {
    const { bans } = await keyHarness();
    for (let i = 0; i < 5; i++) await bans.recordFailure(KEY_ADDRESS);
    await bans.recordFailure(address(1));
    const listed = await bans.list();
    await bans.resetBudget();
    expect(await bans.list()).toEqual(listed);
  });

  it('a hold given back after a reset cannot push the count below nothing', async () => {
    const { bans } = await keyHarness();
    const admission = await bans.admit(address(1));
    await bans.resetBudget();
    await bans.recordSuccess(address(1), admission);
    expect(await bans.budget()).toMatchObject({ failures: 0, state: 'open' });
  });

  it('with the budget off it says so', async () => {
    const harness = createCoreHarness({ banPolicy: { globalFailureBudget: 0 } });
    expect(await harness.bans.budget()).toEqual({ limit: 0, failures: 0, state: 'off', delayMs: null, retryAfterSeconds: null });
  });
});
