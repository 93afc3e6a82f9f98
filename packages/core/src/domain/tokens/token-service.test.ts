import { describe, expect, it, vi } from 'vitest';
import type { RandomSource } from '../../ports/random-source.js';
import type { TokenRecord } from '../../ports/store.js';
import { MemoryStore } from '../../memory/memory-store.js';
import { RecordEditor } from './record-editor.js';
import { createCoreHarness } from '../../testing/core-harness.js';
import { FakeClock } from '../../testing/fake-clock.js';
import { SeededRandom } from '../../testing/seeded-random.js';
import { TokenService } from './token-service.js';
import { overwriteRecord } from '../../testing/overwrite-record.js';

const HEX64 = /^[0-9a-f]{64}$/;
const STRONG = 'Strong-Token-2026!';
const CONFIGURED: TokenRecord = { accessToken: 'My-Configured-Token!', tokenSource: 'configured', firstSetupCompleted: true };

function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function bootedHarness(options: Parameters<typeof createCoreHarness>[0] = {}) {
  const harness = createCoreHarness(options);
  const outcome = await harness.tokens.bootstrap();
  return { ...harness, outcome };
}

describe('TokenService.bootstrap (Token source: first startup)', () => {
  it('no record: a temporary 64-hex token from 32 random bytes, first setup open', async () => {
    const random = new SeededRandom(7);
    const requested: number[] = [];
    const spy: RandomSource = { bytes: (length) => (requested.push(length), random.bytes(length)) };
    const store = new MemoryStore(new FakeClock());
    const tokens = new TokenService(store, new RecordEditor(store), spy);

    const outcome = await tokens.bootstrap();

    expect(requested).toEqual([32]);
    expect(outcome).toEqual({
      reason: 'created',
      temporaryToken: hexOf(new SeededRandom(7).bytes(32)),
      tokenSource: 'temporary',
      requiresCustomToken: true,
      weakRules: [],
    });
    expect(outcome.temporaryToken).toMatch(HEX64);
    expect(await store.record.readRecord()).toEqual({
      accessToken: outcome.temporaryToken,
      tokenSource: 'temporary',
      firstSetupCompleted: false,
    });
    expect(await tokens.verify(outcome.temporaryToken as string)).toBe(true);
    expect(await tokens.status()).toEqual({ tokenSource: 'temporary', requiresCustomToken: true });
  });

  it('temporary record at startup: a fresh, different temporary token; the old one stops working (docs/decisions/0011-temporary-token.md)', async () => {
    const { tokens, store, outcome: first } = await bootedHarness();
    await overwriteRecord(store.record, { ...(await store.record.readRecord())!, firstSetupCompleted: true });

    const second = await tokens.bootstrap();

    expect(second.reason).toBe('temporary_renewed');
    expect(second.temporaryToken).toMatch(HEX64);
    expect(second.temporaryToken).not.toBe(first.temporaryToken);
    expect(second.tokenSource).toBe('temporary');
    expect(second.requiresCustomToken).toBe(true);
    expect(await tokens.verify(first.temporaryToken as string)).toBe(false);
    expect(await tokens.verify(second.temporaryToken as string)).toBe(true);
    expect((await store.record.readRecord())?.firstSetupCompleted).toBe(true);
  });

  it(
    'temporary record while other instances run on the same store: kept and printed again, so every banner shows the ' + 'token in force',
    async () => {
      const { tokens, store, outcome: first } = await bootedHarness();
      const write = vi.spyOn(store.record, 'swapRecord');

      const second = await tokens.bootstrap({ liveInstances: 2 });

      expect(second).toEqual({
        reason: 'temporary_shared',
        temporaryToken: first.temporaryToken,
        sharedWith: 2,
        tokenSource: 'temporary',
        requiresCustomToken: true,
        weakRules: [],
      });
      expect(write).not.toHaveBeenCalled();
      expect(await tokens.verify(first.temporaryToken as string)).toBe(true);
      // Once no other instance runs, the next start renews it as docs/decisions/0011-temporary-token.md says.
      expect((await tokens.bootstrap({ liveInstances: 0 })).reason).toBe('temporary_renewed');
      expect(await tokens.verify(first.temporaryToken as string)).toBe(false);
    },
  );

  it('a configured token and a changed secret key are not affected by other running instances', async () => {
    const { tokens } = await bootedHarness();
    await tokens.update(STRONG);
    expect((await tokens.bootstrap({ liveInstances: 1, secretKeyFingerprint: 'a'.repeat(64) })).reason).toBe('kept');
    expect((await tokens.bootstrap({ liveInstances: 1, secretKeyFingerprint: 'f'.repeat(64) })).reason).toBe('secret_key_changed');
  });

  it('configured record: kept as is, nothing to print, nothing written', async () => {
    const { tokens, store } = createCoreHarness({ record: CONFIGURED });
    const write = vi.spyOn(store.record, 'swapRecord');

    const outcome = await tokens.bootstrap();

    expect(outcome).toEqual({ reason: 'kept', temporaryToken: null, tokenSource: 'configured', requiresCustomToken: false, weakRules: [] });
    expect(write).not.toHaveBeenCalled();
    expect(await store.record.readRecord()).toEqual(CONFIGURED);
    expect(await tokens.verify(CONFIGURED.accessToken)).toBe(true);
  });

  it('a weak configured token (written by hand): kept, its broken rules named, a custom token required everywhere', async () => {
    const { tokens } = createCoreHarness({ record: { ...CONFIGURED, accessToken: 'a' } });

    const outcome = await tokens.bootstrap();

    expect(outcome).toEqual({
      reason: 'kept',
      temporaryToken: null,
      tokenSource: 'configured',
      requiresCustomToken: true,
      weakRules: ['too_short', 'missing_uppercase', 'missing_special'],
    });
    expect(await tokens.status()).toEqual({ tokenSource: 'configured', requiresCustomToken: true });
    expect(await tokens.statusFor('a')).toEqual({ tokenSource: 'configured', requiresCustomToken: true });
  });

  it('a regenerated token (64 hex, configured) is not weak', async () => {
    const { tokens } = createCoreHarness({ record: CONFIGURED });
    const rotated = await tokens.regenerate();
    expect(rotated).toMatchObject({ tokenSource: 'configured', requiresCustomToken: false });
    expect(await tokens.bootstrap()).toMatchObject({ reason: 'kept', requiresCustomToken: false, weakRules: [] });
  });

  it('legacy record without tokenSource and a 64-hex token: read as temporary and renewed (docs/decisions/0012-token-file.md)', async () => {
    const legacy = { accessToken: 'ab'.repeat(32), firstSetupCompleted: true };
    const { tokens, store } = createCoreHarness({ record: legacy });

    const outcome = await tokens.bootstrap();

    expect(outcome.reason).toBe('temporary_renewed');
    expect(outcome.temporaryToken).toMatch(HEX64);
    expect(outcome.temporaryToken).not.toBe(legacy.accessToken);
    expect(await store.record.readRecord()).toEqual({
      accessToken: outcome.temporaryToken,
      tokenSource: 'temporary',
      firstSetupCompleted: true,
    });
  });

  it('legacy record without tokenSource and any other token: read as configured, kept, tokenSource written (docs/decisions/0012-token-file.md)', async () => {
    for (const accessToken of ['my-own-token', 'AB'.repeat(32), 'ab'.repeat(31) + 'a', 'ab'.repeat(32) + '0']) {
      const { tokens, store } = createCoreHarness({ record: { accessToken, firstSetupCompleted: false } });

      const outcome = await tokens.bootstrap();

      // These hand-written tokens are weak too: kept, and reported so (see the weak-token test below).
      expect(outcome).toMatchObject({ reason: 'kept', temporaryToken: null, tokenSource: 'configured', requiresCustomToken: true });
      expect(await store.record.readRecord()).toEqual({ accessToken, tokenSource: 'configured', firstSetupCompleted: false });
    }
  });
});

describe('TokenService.bootstrap with the secret-key fingerprint (docs/decisions/0010-secret-key-revokes-sessions.md)', () => {
  it('first fingerprint on a configured record: recorded, token kept, nothing printed', async () => {
    const { tokens, store } = createCoreHarness({ record: CONFIGURED });

    const outcome = await tokens.bootstrap({ secretKeyFingerprint: 'f1'.repeat(32) });

    expect(outcome).toEqual({ reason: 'kept', temporaryToken: null, tokenSource: 'configured', requiresCustomToken: false, weakRules: [] });
    expect(await store.record.readRecord()).toEqual({ ...CONFIGURED, secretKeyFingerprint: 'f1'.repeat(32) });
  });

  it('same fingerprint again: kept, nothing written', async () => {
    const { tokens, store } = createCoreHarness({ record: { ...CONFIGURED, secretKeyFingerprint: 'aa' } });
    const write = vi.spyOn(store.record, 'swapRecord');

    const outcome = await tokens.bootstrap({ secretKeyFingerprint: 'aa' });

    expect(outcome.reason).toBe('kept');
    expect(write).not.toHaveBeenCalled();
  });

  it('first fingerprint on a temporary record: recorded with the renewed token', async () => {
    const { tokens, store } = await bootedHarness();

    const outcome = await tokens.bootstrap({ secretKeyFingerprint: 'aa' });

    expect(outcome.reason).toBe('temporary_renewed');
    expect(await store.record.readRecord()).toMatchObject({
      accessToken: outcome.temporaryToken,
      tokenSource: 'temporary',
      secretKeyFingerprint: 'aa',
    });
  });

  it('changed fingerprint: a new temporary token revokes every session, first-setup state kept', async () => {
    const { tokens, store } = createCoreHarness({ record: { ...CONFIGURED, secretKeyFingerprint: 'aa' } });

    const outcome = await tokens.bootstrap({ secretKeyFingerprint: 'bb' });

    expect(outcome.reason).toBe('secret_key_changed');
    expect(outcome.temporaryToken).toMatch(HEX64);
    expect(outcome.tokenSource).toBe('temporary');
    expect(outcome.requiresCustomToken).toBe(true);
    expect(await tokens.verify(CONFIGURED.accessToken)).toBe(false);
    expect(await store.record.readRecord()).toEqual({
      accessToken: outcome.temporaryToken,
      tokenSource: 'temporary',
      firstSetupCompleted: true,
      secretKeyFingerprint: 'bb',
    });
  });

  it('removed secret key: counts as a change, the fingerprint is dropped from the record', async () => {
    const { tokens, store } = createCoreHarness({ record: { ...CONFIGURED, secretKeyFingerprint: 'aa' } });

    const outcome = await tokens.bootstrap();

    expect(outcome.reason).toBe('secret_key_changed');
    expect(await tokens.verify(CONFIGURED.accessToken)).toBe(false);
    const record = await store.record.readRecord();
    expect(record).toEqual({ accessToken: outcome.temporaryToken, tokenSource: 'temporary', firstSetupCompleted: true });
    expect(record).not.toHaveProperty('secretKeyFingerprint');
  });

  it('no fingerprint before and none now: a configured record is simply kept', async () => {
    const { tokens } = createCoreHarness({ record: CONFIGURED });
    expect((await tokens.bootstrap({})).reason).toBe('kept');
  });
});

describe('TokenService.verify', () => {
  it('is false when no record exists yet', async () => {
    const { tokens } = createCoreHarness();
    expect(await tokens.verify('anything')).toBe(false);
    expect(await tokens.verify('')).toBe(false);
  });

  it('accepts only the exact token', async () => {
    const { tokens } = createCoreHarness({ record: CONFIGURED });
    expect(await tokens.verify(CONFIGURED.accessToken)).toBe(true);
    expect(await tokens.verify(CONFIGURED.accessToken.slice(0, -1))).toBe(false);
    expect(await tokens.verify(`${CONFIGURED.accessToken}x`)).toBe(false);
    expect(await tokens.verify(CONFIGURED.accessToken.toLowerCase())).toBe(false);
    expect(await tokens.verify('')).toBe(false);
  });

  it('never accepts anything when the stored token is empty', async () => {
    const { tokens } = createCoreHarness({ record: { ...CONFIGURED, accessToken: '' } });
    expect(await tokens.verify('')).toBe(false);
    expect(await tokens.verify('\u0000')).toBe(false);
  });

  it('gives the status with the check, for the exact token only', async () => {
    const { tokens } = createCoreHarness({ record: CONFIGURED });
    expect(await tokens.statusFor(CONFIGURED.accessToken)).toEqual(await tokens.status());
    expect(await tokens.statusFor(CONFIGURED.accessToken)).toEqual({ tokenSource: 'configured', requiresCustomToken: false });
    expect(await tokens.statusFor(`${CONFIGURED.accessToken}x`)).toBeNull();
    expect(await createCoreHarness().tokens.statusFor('anything')).toBeNull();
  });

  it('status and rotations need a record: bootstrap() must run first', async () => {
    const { tokens } = createCoreHarness();
    await expect(tokens.status()).rejects.toThrow(/bootstrap\(\) must run first/);
    await expect(tokens.update(STRONG)).rejects.toThrow(/bootstrap\(\) must run first/);
    await expect(tokens.regenerate()).rejects.toThrow(/bootstrap\(\) must run first/);
  });
});

describe('TokenService.update (Token source: temporary -> configured)', () => {
  it('reports every broken rule at once', async () => {
    const { tokens } = await bootedHarness();
    const cases: Array<[string, string[]]> = [
      ['', ['too_short', 'missing_uppercase', 'missing_lowercase', 'missing_special']],
      ['short', ['too_short', 'missing_uppercase', 'missing_special']],
      ['has space', ['too_short', 'missing_uppercase', 'missing_special', 'invalid_characters']],
      ['Has Space in it!', ['invalid_characters']],
      ['Ünïcödé-Tökén-1', ['invalid_characters']],
      ['Ünïcödé-tökén', ['missing_uppercase', 'invalid_characters']],
      ['ALLUPPERCASE!', ['missing_lowercase']],
      ['alllowercase!', ['missing_uppercase']],
      ['NoSpecialChars1', ['missing_special']],
      ['Tab\there-is!', ['invalid_characters']],
      [`Aa!${'x'.repeat(510)}`, ['too_long']],
      [`A a${'é'.repeat(510)}`, ['too_long', 'missing_special', 'invalid_characters']],
    ];
    for (const [candidate, violations] of cases) {
      const result = await tokens.update(candidate);
      expect(result, JSON.stringify(candidate)).toEqual({ ok: false, error: { code: 'weak_token', violations } });
    }
  });

  it('accepts the boundaries: exactly 10 and exactly 512 characters', async () => {
    const { tokens } = await bootedHarness();
    expect((await tokens.update('Abcdefgh!1')).ok).toBe(true);
    expect((await tokens.update(`Aa!${'y'.repeat(509)}`)).ok).toBe(true);
    expect((await tokens.update('Abcdefg!9')).ok).toBe(false);
  });

  it('refuses the current token (same_as_current), together with other rules', async () => {
    const { tokens, outcome } = await bootedHarness();
    const current = outcome.temporaryToken as string;
    expect(await tokens.update(current)).toEqual({
      ok: false,
      error: { code: 'weak_token', violations: ['missing_uppercase', 'missing_special', 'same_as_current'] },
    });

    expect((await tokens.update(STRONG)).ok).toBe(true);
    expect(await tokens.update(STRONG)).toEqual({ ok: false, error: { code: 'weak_token', violations: ['same_as_current'] } });
  });

  it('a weak token changes nothing', async () => {
    const { tokens, store, outcome } = await bootedHarness();
    const before = await store.record.readRecord();
    const write = vi.spyOn(store.record, 'swapRecord');
    const revoke = vi.spyOn(store.tickets, 'revokeTickets');

    expect((await tokens.update('weak')).ok).toBe(false);

    expect(write).not.toHaveBeenCalled();
    expect(revoke).not.toHaveBeenCalled();
    expect(await store.record.readRecord()).toEqual(before);
    expect(await tokens.verify(outcome.temporaryToken as string)).toBe(true);
    expect(await tokens.status()).toEqual({ tokenSource: 'temporary', requiresCustomToken: true });
  });

  it('success: configured, the old token fails at once, the new one verifies, first setup untouched', async () => {
    const { tokens, store, outcome } = await bootedHarness();
    const old = outcome.temporaryToken as string;

    const result = await tokens.update(STRONG);

    expect(result).toEqual({
      ok: true,
      value: { token: STRONG, previousToken: old, tokenSource: 'configured', requiresCustomToken: false },
    });
    expect(await tokens.verify(old)).toBe(false);
    expect(await tokens.verify(STRONG)).toBe(true);
    expect(await tokens.status()).toEqual({ tokenSource: 'configured', requiresCustomToken: false });
    expect(await store.record.readRecord()).toEqual({ accessToken: STRONG, tokenSource: 'configured', firstSetupCompleted: false });
  });

  it('accepts every special character of the specification', async () => {
    const { tokens } = await bootedHarness();
    for (const special of '!@#$%^&*()_+-=[]{}|;:,.<>?/') {
      const result = await tokens.update(`Abcdefghi${special}`);
      expect(result.ok, special).toBe(true);
    }
  });

  it('a token is kept after a restart once configured: bootstrap prints nothing', async () => {
    const { tokens } = await bootedHarness();
    await tokens.update(STRONG);
    const restart = await tokens.bootstrap();
    expect(restart).toEqual({ reason: 'kept', temporaryToken: null, tokenSource: 'configured', requiresCustomToken: false, weakRules: [] });
    expect(await tokens.verify(STRONG)).toBe(true);
  });
});

describe('TokenService.regenerate (Token source: temporary or configured -> configured)', () => {
  it('from temporary: 64 lowercase hex, configured, old token invalid at once', async () => {
    const { tokens, outcome } = await bootedHarness();
    const old = outcome.temporaryToken as string;

    const rotated = await tokens.regenerate();

    expect(rotated.token).toMatch(HEX64);
    expect(rotated.token).not.toBe(old);
    expect(rotated).toMatchObject({ previousToken: old, tokenSource: 'configured', requiresCustomToken: false });
    expect(await tokens.verify(old)).toBe(false);
    expect(await tokens.verify(rotated.token)).toBe(true);
    expect(await tokens.status()).toEqual({ tokenSource: 'configured', requiresCustomToken: false });
  });

  it('from configured: stays configured and survives a restart (not mistaken for a temporary 64-hex token)', async () => {
    const { tokens, store } = createCoreHarness({ record: CONFIGURED });
    await tokens.bootstrap();

    const rotated = await tokens.regenerate();

    expect(rotated.previousToken).toBe(CONFIGURED.accessToken);
    expect(await store.record.readRecord()).toEqual({ ...CONFIGURED, accessToken: rotated.token });
    expect((await tokens.bootstrap()).reason).toBe('kept');
    expect(await tokens.verify(rotated.token)).toBe(true);
  });
});

describe('after a rotation', () => {
  it('tickets issued under the old token are revoked (update and regenerate)', async () => {
    const { tokens, tickets, store, outcome } = await bootedHarness();
    const first = await tickets.issue(outcome.temporaryToken as string);
    if (!first.ok) throw new Error('issue failed');

    await tokens.update(STRONG);
    expect(store.size.tickets).toBe(0);
    expect(await tickets.redeem(first.value.ticket)).toEqual({ ok: false, error: 'unknown_ticket' });

    const second = await tickets.issue(STRONG);
    if (!second.ok) throw new Error('issue failed');
    await tokens.regenerate();
    expect(await tickets.redeem(second.value.ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('concurrent rotations are serialised: each one sees the token the previous one wrote', async () => {
    const { tokens, outcome } = await bootedHarness();

    const [updated, regenerated] = await Promise.all([tokens.update(STRONG), tokens.regenerate()]);

    if (!updated.ok) throw new Error('update failed');
    expect(updated.value.previousToken).toBe(outcome.temporaryToken);
    expect(regenerated.previousToken).toBe(STRONG);
    expect(await tokens.verify(regenerated.token)).toBe(true);
    expect(await tokens.verify(STRONG)).toBe(false);
  });
});
