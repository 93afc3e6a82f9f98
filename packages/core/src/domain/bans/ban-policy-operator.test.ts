import { describe, expect, it, vi } from 'vitest';
import { BanPolicy, DEFAULT_BAN_POLICY, type BanEntry, type BanPolicyOptions } from './ban-policy.js';
import { parseCidr, type Cidr } from '../../net/cidr.js';
import type { AttemptStore, FailureBudgetStore, RetiredTokenStore } from '../../ports/store.js';
import { err, ok } from '../result.js';
import { createCoreHarness } from '../../testing/core-harness.js';
import { tokenFingerprint } from '../tokens/token-fingerprint.js';
import { overwriteRecord } from '../../testing/overwrite-record.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const BAN_MS = DEFAULT_BAN_POLICY.banMs;
const LIFETIME_MS = DEFAULT_BAN_POLICY.sessionLifetimeMs;

const IP = '203.0.113.7';
const OTHER = '198.51.100.1';
const OLD_TOKEN = 'Old-Token-Before-Rotation-1!';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`did not parse: ${text}`);
  return parsed;
}

async function failures(bans: BanPolicy, ip: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await bans.recordFailure(ip);
}

const counting = (key: string, failureCount: number, lastFailureAt: number): BanEntry => ({
  key,
  failures: failureCount,
  bannedUntil: null,
  lastFailureAt,
});
const banned = (key: string, lastFailureAt: number): BanEntry => ({ key, failures: 0, bannedUntil: lastFailureAt + BAN_MS, lastFailureAt });

/** A core whose token is OLD_TOKEN, so a rotation retires a token the test knows. */
function rotatingHarness(banPolicy: Partial<BanPolicyOptions> = {}) {
  return createCoreHarness({ record: { accessToken: OLD_TOKEN, tokenSource: 'configured', firstSetupCompleted: true }, banPolicy });
}

const staleCookie = (token: string) => ({ cookie: token, presented: [token] });

describe('BanPolicy.list', () => {
  it('lists failures in the window and running bans, banned first, then the most recent failure first, with exact times', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await bans.recordFailure(OTHER);
    clock.advanceSeconds(10);
    await bans.recordFailure(OTHER);
    clock.set(t0 + 20 * SECOND);
    await failures(bans, IP, 5);
    clock.set(t0 + 30 * SECOND);
    await bans.recordFailure('192.0.2.9');
    clock.set(t0 + 40 * SECOND);

    expect(await bans.list()).toEqual([
      banned(IP, t0 + 20 * SECOND),
      counting('192.0.2.9', 1, t0 + 30 * SECOND),
      counting(OTHER, 2, t0 + 10 * SECOND),
    ]);
  });

  it('a failure during a ban changes neither the ban nor its last failure time', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, IP, 5);
    clock.advance(MINUTE);
    await bans.recordFailure(IP);
    expect(await bans.list()).toEqual([banned(IP, t0)]);
  });

  it('several bans are ordered by their last failure, newest first', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, OTHER, 5);
    clock.advance(MINUTE);
    await failures(bans, IP, 5);
    clock.advance(MINUTE);
    await bans.recordFailure('192.0.2.9');
    expect((await bans.list()).map((entry) => entry.key)).toEqual([IP, OTHER, '192.0.2.9']);
    expect((await bans.list())[1]).toEqual(banned(OTHER, t0));
  });

  it('countBanned counts the running bans list() shows, and none once they end', async () => {
    const { bans, clock } = createCoreHarness();
    await failures(bans, OTHER, 5);
    await failures(bans, IP, 5);
    await bans.recordFailure('192.0.2.9');
    expect(await bans.countBanned()).toBe((await bans.list()).filter((entry) => entry.bannedUntil !== null).length);
    expect(await bans.countBanned()).toBe(2);
    clock.advance(11 * MINUTE);
    expect(await bans.countBanned()).toBe(0);
  });

  it('a client whose only failure is 4:59 old is listed; at 5:01 it is gone', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await bans.recordFailure(IP);
    clock.set(t0 + 4 * MINUTE + 59 * SECOND);
    expect(await bans.list()).toEqual([counting(IP, 1, t0)]);
    clock.set(t0 + 5 * MINUTE + SECOND);
    expect(await bans.list()).toEqual([]);
  });

  it('failures that left the window are no longer counted in the entry', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await bans.recordFailure(IP);
    clock.set(t0 + MINUTE);
    await bans.recordFailure(IP);
    clock.set(t0 + 4 * MINUTE + 59 * SECOND);
    expect(await bans.list()).toEqual([counting(IP, 2, t0 + MINUTE)]);
    clock.set(t0 + 5 * MINUTE + SECOND);
    expect(await bans.list()).toEqual([counting(IP, 1, t0 + MINUTE)]);
  });

  it('a ban is listed until it ends and then disappears', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, IP, 5);
    clock.set(t0 + BAN_MS - 1);
    expect(await bans.list()).toEqual([banned(IP, t0)]);
    clock.set(t0 + BAN_MS);
    expect(await bans.list()).toEqual([]);
  });

  it('IPv6 clients are listed per /64, IPv4-mapped ones as IPv4', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await bans.recordFailure('2001:db8:1:2::1');
    await bans.recordFailure('2001:db8:1:2::2');
    await bans.recordFailure('[2001:db8:1:2:ffff::9]');
    clock.advance(SECOND);
    await bans.recordFailure('2001:db8:1:3::1');
    clock.advance(SECOND);
    await bans.recordFailure('::ffff:192.0.2.1');
    expect(await bans.list()).toEqual([
      counting('192.0.2.1', 1, t0 + 2 * SECOND),
      counting('2001:db8:1:3::/64', 1, t0 + SECOND),
      counting('2001:db8:1:2::/64', 3, t0),
    ]);
  });

  it('is empty when nothing was counted', async () => {
    const { bans } = createCoreHarness();
    await bans.recordSuccess(IP);
    expect(await bans.list()).toEqual([]);
  });
});

describe('BanPolicy.lift', () => {
  it("'all' lifts every ban and clears every count, returning what it lifted by key", async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, IP, 5);
    await failures(bans, OTHER, 2);
    await bans.recordFailure('2001:db8:1:2::1');
    await failures(bans, 'unix:/run/webui.sock', 5);

    expect(await bans.lift('all')).toEqual(
      ok([counting(OTHER, 2, t0), counting('2001:db8:1:2::/64', 1, t0), banned(IP, t0), banned('unix:/run/webui.sock', t0)]),
    );
    expect(await bans.list()).toEqual([]);
    expect(await bans.status(IP)).toEqual({ banned: false });
    expect(await bans.status('unix:/run/webui.sock')).toEqual({ banned: false });
  });

  it('one address lifts only its own ban', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, IP, 5);
    await failures(bans, OTHER, 5);
    expect(await bans.lift(IP)).toEqual(ok([banned(IP, t0)]));
    expect(await bans.status(IP)).toEqual({ banned: false });
    expect(await bans.status(OTHER)).toMatchObject({ banned: true });
    expect(await bans.list()).toEqual([banned(OTHER, t0)]);
  });

  it('a CIDR lifts every key inside it and nothing outside', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, '198.51.100.1', 5);
    await failures(bans, '198.51.100.200', 5);
    await failures(bans, '198.51.100.3', 1);
    await failures(bans, '198.51.101.1', 5);
    await failures(bans, 'unix:/run/webui.sock', 5);

    expect(await bans.lift('198.51.100.0/24')).toEqual(
      ok([banned('198.51.100.1', t0), banned('198.51.100.200', t0), counting('198.51.100.3', 1, t0)]),
    );
    expect((await bans.list()).map((entry) => entry.key).sort()).toEqual(['198.51.101.1', 'unix:/run/webui.sock']);
    // A network never reaches a key that is no address.
    expect(await bans.lift('0.0.0.0/0')).toEqual(ok([banned('198.51.101.1', t0)]));
    expect((await bans.list()).map((entry) => entry.key)).toEqual(['unix:/run/webui.sock']);
  });

  it('one IPv6 address lifts the /64 it belongs to; a /48 lifts every /64 inside', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, '2001:db8:1:2::1', 5);
    await failures(bans, '2001:db8:1:3::1', 5);
    await failures(bans, '2001:db8:2:2::1', 5);

    expect(await bans.lift('2001:db8:1:2::abcd')).toEqual(ok([banned('2001:db8:1:2::/64', t0)]));
    expect(await bans.status('2001:db8:1:2::1')).toEqual({ banned: false });
    expect(await bans.status('2001:db8:1:3::1')).toMatchObject({ banned: true });

    await failures(bans, '2001:db8:1:2::1', 5);
    expect(await bans.lift('2001:db8:1::/48')).toEqual(ok([banned('2001:db8:1:2::/64', t0), banned('2001:db8:1:3::/64', t0)]));
    expect(await bans.list()).toEqual([banned('2001:db8:2:2::/64', t0)]);
  });

  it('a key exactly as listed lifts it', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, '2001:db8:1:2::1', 5);
    await failures(bans, 'unix:/run/webui.sock', 5);
    const keys = (await bans.list()).map((entry) => entry.key);
    expect(keys.sort()).toEqual(['2001:db8:1:2::/64', 'unix:/run/webui.sock']);
    for (const key of keys) expect(await bans.lift(key), key).toEqual(ok([banned(key, t0)]));
    expect(await bans.list()).toEqual([]);
  });

  it('an empty or spaced target is refused and lifts nothing', async () => {
    const { bans } = createCoreHarness();
    await failures(bans, IP, 5);
    for (const target of ['', '   ', `${IP} ${OTHER}`])
      expect(await bans.lift(target), JSON.stringify(target)).toEqual(err('invalid_target'));
    expect(await bans.status(IP)).toMatchObject({ banned: true });
  });

  it('lifting clears the failures with the ban: the next failure counts as the first', async () => {
    const { bans } = createCoreHarness();
    await failures(bans, IP, 5);
    await failures(bans, OTHER, 4);
    await bans.lift(IP);
    await bans.lift(OTHER);
    expect(await bans.recordFailure(IP)).toEqual({ banned: false, remainingAttempts: 4, remind: false, counted: true });
    expect(await bans.recordFailure(OTHER)).toEqual({ banned: false, remainingAttempts: 4, remind: false, counted: true });
  });

  it('lifting what is not there answers an empty list and leaves the others alone', async () => {
    const { bans } = createCoreHarness();
    expect(await bans.lift('all')).toEqual(ok([]));
    await failures(bans, IP, 5);
    expect(await bans.lift('10.0.0.0/8')).toEqual(ok([]));
    expect(await bans.lift(OTHER)).toEqual(ok([]));
    expect(await bans.lift('unix:/run/webui.sock')).toEqual(ok([]));
    expect(await bans.status(IP)).toMatchObject({ banned: true });
  });

  it('a lift racing a failure of the same client never loses either: the two run one after the other', async () => {
    const { bans, clock } = createCoreHarness();
    const t0 = clock.now();
    await failures(bans, IP, 4);
    const [lifted, outcome] = await Promise.all([bans.lift(IP), bans.recordFailure(IP)]);
    const after = await bans.list();
    const liftFirst = {
      lifted: ok([counting(IP, 4, t0)]),
      outcome: { banned: false, remainingAttempts: 4, remind: false, counted: true },
      after: [counting(IP, 1, t0)],
    };
    const failureFirst = { lifted: ok([banned(IP, t0)]), outcome: { banned: true, justBanned: true, retryAfterSeconds: 600 }, after: [] };
    expect([liftFirst, failureFirst]).toContainEqual({ lifted, outcome, after });
  });
});

describe('BanPolicy: exempt networks (webui.ban_exempt)', () => {
  const exemptPolicy = { exempt: [cidr('10.0.0.0/24'), cidr('2001:db8:ffff::/48')], globalFailureBudget: 10 };

  it('an exempt address is never banned: 20 failures are not counted', async () => {
    const { bans } = createCoreHarness({ banPolicy: exemptPolicy });
    for (let i = 0; i < 20; i++) {
      expect(await bans.recordFailure('10.0.0.5', { cookie: `guess-${i}` })).toEqual({
        banned: false,
        remainingAttempts: 5,
        remind: false,
        counted: false,
        reason: 'exempt',
      });
    }
    for (let i = 0; i < 20; i++) expect(await bans.recordFailure('2001:db8:ffff:1::1')).toMatchObject({ counted: false, reason: 'exempt' });
    expect(await bans.status('10.0.0.5')).toEqual({ banned: false });
    expect(await bans.admit('10.0.0.5')).toEqual({ kind: 'open', hold: null });
    expect(await bans.list()).toEqual([]);
  });

  it('a non-exempt neighbour is still banned', async () => {
    const { bans } = createCoreHarness({ banPolicy: exemptPolicy });
    await failures(bans, '10.0.0.5', 20);
    await failures(bans, '10.0.1.5', 4);
    expect(await bans.recordFailure('10.0.1.5')).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 600 });
    expect(await bans.admit('10.0.1.5')).toEqual({ kind: 'banned', retryAfterSeconds: 600, hold: null });
  });

  it('an exempt address is admitted at once while the global budget is spent, and spends none of it', async () => {
    const { bans, store, clock } = createCoreHarness({ banPolicy: exemptPolicy });
    for (let i = 1; i <= 25; i++) await bans.recordFailure(`198.51.100.${i}`);
    expect(await bans.admit('198.51.100.200')).toMatchObject({ kind: 'throttled' });
    const spent = await store.budget.readGlobalFailures(0);
    for (let i = 0; i < 30; i++) expect(await bans.admit('10.0.0.5')).toEqual({ kind: 'open', hold: null });
    await failures(bans, '10.0.0.5', 30);
    expect(await store.budget.readGlobalFailures(0)).toEqual(spent);
    clock.advance(60 * MINUTE);
    expect(await bans.admit('198.51.100.200')).toMatchObject({ kind: 'open' });
  });

  it('exempting an address that is already banned frees it at once', async () => {
    const { bans, store, clock } = createCoreHarness();
    await failures(bans, '10.0.0.5', 5);
    expect(await bans.status('10.0.0.5')).toMatchObject({ banned: true });
    const exempting = new BanPolicy(store, clock, exemptPolicy);
    expect(await exempting.status('10.0.0.5')).toEqual({ banned: false });
    expect(await exempting.admit('10.0.0.5')).toEqual({ kind: 'open', hold: null });
  });
});

describe('BanPolicy: stale sessions after a token change', () => {
  it('the old token, presented 20 times after a regenerate, is never counted and never bans', async () => {
    const { bans, tokens } = rotatingHarness();
    await tokens.regenerate();
    for (let i = 0; i < 20; i++) {
      expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toEqual({
        banned: false,
        remainingAttempts: 5,
        remind: false,
        counted: false,
        reason: 'stale_session',
      });
    }
    expect(await bans.status(IP)).toEqual({ banned: false });
    expect(await bans.list()).toEqual([]);
  });

  it('every token replaced by update() is stale, the ones before it too', async () => {
    const { bans, tokens } = rotatingHarness();
    const { token: between } = await tokens.regenerate();
    expect((await tokens.update('Brand-New-Token-2026!')).ok).toBe(true);
    for (let i = 0; i < 10; i++) {
      expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toMatchObject({ counted: false, reason: 'stale_session' });
      expect(await bans.recordFailure(IP, staleCookie(between))).toMatchObject({ counted: false, reason: 'stale_session' });
    }
    expect(await bans.status(IP)).toEqual({ banned: false });
  });

  it('a token replaced by someone else writing the store (a hand edit) is stale too', async () => {
    const { bans, store } = rotatingHarness();
    await overwriteRecord(store.record, { accessToken: 'Hand-Edited-Token-2026!', tokenSource: 'configured', firstSetupCompleted: true });
    expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toMatchObject({ counted: false, reason: 'stale_session' });
  });

  it('a cookie carrying any retired token among its candidates is stale', async () => {
    const { bans, tokens } = rotatingHarness();
    await tokens.regenerate();
    expect(await bans.recordFailure(IP, { cookie: 'raw%value', presented: ['raw%value', OLD_TOKEN] })).toMatchObject({
      counted: false,
      reason: 'stale_session',
    });
  });

  it('a value that was never the token still counts, each distinct one (docs/decisions/0004-guessing-through-the-cookie.md)', async () => {
    const { bans, tokens } = rotatingHarness();
    await tokens.regenerate();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await bans.recordFailure(IP, staleCookie(`never-valid-${i}`)));
    expect(outcomes.slice(0, 4).map((outcome) => (outcome.banned ? -1 : outcome.remainingAttempts))).toEqual([4, 3, 2, 1]);
    expect(outcomes[4]).toEqual({ banned: true, justBanned: true, retryAfterSeconds: 600 });
  });

  it('the retired token is stale until sessionLifetimeMs has passed, then counts like any guess', async () => {
    const { bans, tokens, clock } = rotatingHarness();
    const rotatedAt = clock.now();
    await tokens.regenerate();
    clock.set(rotatedAt + LIFETIME_MS - 1);
    expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toMatchObject({ counted: false, reason: 'stale_session' });
    clock.set(rotatedAt + LIFETIME_MS + 1);
    expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toEqual({
      banned: false,
      remainingAttempts: 4,
      remind: false,
      counted: true,
    });
  });

  it('honours a configured sessionLifetimeMs', async () => {
    const { bans, tokens, clock } = rotatingHarness({ sessionLifetimeMs: 30 * MINUTE });
    const rotatedAt = clock.now();
    await tokens.regenerate();
    clock.set(rotatedAt + 30 * MINUTE - 1);
    expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toMatchObject({ counted: false, reason: 'stale_session' });
    clock.set(rotatedAt + 30 * MINUTE + 1);
    expect(await bans.recordFailure(IP, staleCookie(OLD_TOKEN))).toMatchObject({ counted: true });
  });

  it('the store keeps only a fingerprint of the retired token and is never handed the token itself', async () => {
    const { bans, tokens, store, clock } = rotatingHarness();
    // Every method of the ports BanPolicy uses; the record and ticket ports hold the token by design.
    const spies: Array<{ name: string; spy: { mock: { calls: unknown[][] } } }> = [
      ...(
        ['readClient', 'readAttempts', 'countFailure', 'recordLogin', 'deleteAttempts', 'listAttempts'] as const satisfies ReadonlyArray<
          keyof AttemptStore
        >
      ).map((name) => ({ name, spy: vi.spyOn(store.attempts, name) })),
      ...(
        ['addGlobalFailures', 'readGlobalFailures', 'clearGlobalFailures'] as const satisfies ReadonlyArray<keyof FailureBudgetStore>
      ).map((name) => ({ name, spy: vi.spyOn(store.budget, name) })),
      ...(['retireToken', 'isRetiredToken'] as const satisfies ReadonlyArray<keyof RetiredTokenStore>).map((name) => ({
        name,
        spy: vi.spyOn(store.retiredTokens, name),
      })),
    ];
    const rotatedAt = clock.now();

    await tokens.regenerate();
    for (let i = 0; i < 20; i++) await bans.recordFailure(IP, staleCookie(OLD_TOKEN));
    await bans.recordFailure(IP, staleCookie('never-valid'));
    await bans.admit(IP);
    await bans.list();
    await bans.lift('all');

    const fingerprint = await tokenFingerprint(OLD_TOKEN);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const retire = spies.find((entry) => entry.name === 'retireToken')?.spy;
    expect(retire?.mock.calls).toEqual([[fingerprint, rotatedAt + LIFETIME_MS]]);
    for (const { name, spy } of spies) {
      for (const args of spy.mock.calls) expect(JSON.stringify(args), `${name} was handed the token`).not.toContain(OLD_TOKEN);
    }
    expect(spies.find((entry) => entry.name === 'isRetiredToken')?.spy.mock.calls.length).toBeGreaterThanOrEqual(20);
    expect(await store.retiredTokens.isRetiredToken(fingerprint)).toBe(true);
    expect(await store.retiredTokens.isRetiredToken(OLD_TOKEN)).toBe(false);
  });

  it('the fingerprint is domain-separated: not the plain SHA-256 of the token', async () => {
    const plain = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(OLD_TOKEN)));
    const plainHex = Array.from(plain, (byte) => byte.toString(16).padStart(2, '0')).join('');
    expect(await tokenFingerprint(OLD_TOKEN)).not.toBe(plainHex);
    expect(await tokenFingerprint(OLD_TOKEN)).toBe(await tokenFingerprint(OLD_TOKEN));
    expect(await tokenFingerprint(OLD_TOKEN)).not.toBe(await tokenFingerprint(`${OLD_TOKEN}x`));
  });

  it('a stale cookie checked while the old token is still being retired waits for it instead of counting', async () => {
    const { bans, tokens, store } = rotatingHarness();
    // Holds the store's write of the fingerprint, as a slow shared store would, until the check is seen parked.
    let releaseRetire: () => void = () => undefined;
    const retireHeld = new Promise<void>((resolve) => (releaseRetire = resolve));
    let writeReached: () => void = () => undefined;
    const retireWriting = new Promise<void>((resolve) => (writeReached = resolve));
    const retireToken = store.retiredTokens.retireToken.bind(store.retiredTokens);
    store.retiredTokens.retireToken = async (fingerprint, until) => {
      writeReached();
      await retireHeld;
      return retireToken(fingerprint, until);
    };
    await tokens.regenerate();
    await retireWriting;
    const looks = vi.spyOn(store.retiredTokens, 'isRetiredToken');
    const hashes = vi.spyOn(crypto.subtle, 'digest');
    try {
      const outcome = bans.recordFailure(IP, staleCookie(OLD_TOKEN));
      // A check that did not wait would be hashing the presented token by now: its way there has no await.
      expect(hashes).not.toHaveBeenCalled();
      expect(looks).not.toHaveBeenCalled();
      releaseRetire();
      expect(await outcome).toMatchObject({ counted: false, reason: 'stale_session' });
      expect(looks).toHaveBeenCalled();
    } finally {
      hashes.mockRestore();
      looks.mockRestore();
    }
  });
});
