import { describe, expect, it } from 'vitest';
import { apiKeyHash } from './api-key-format.js';
import { LAST_USED_RESOLUTION_MS, MAX_API_KEYS } from './api-keys.js';
import { permits, type Permission, type Principal } from './credentials.js';
import { createCoreHarness } from '../testing/core-harness.js';

const KEY = /^wk_[A-Za-z0-9_-]{43}$/;
const DAY = 86_400_000;

async function booted() {
  const harness = createCoreHarness();
  const { temporaryToken } = await harness.tokens.bootstrap();
  return { ...harness, token: temporaryToken as string };
}

async function created(
  harness: Awaited<ReturnType<typeof booted>>,
  name: string,
  scope: 'read' | 'admin' = 'read',
  lifetimeMs: number | null = null,
) {
  const result = await harness.keys.create({ name, scope, lifetimeMs });
  if (!result.ok) throw new Error(`create refused: ${result.error}`);
  return result.value;
}

describe('ApiKeys.create', () => {
  it('returns wk_ and 43 URL-safe characters once, and keeps only the SHA-256 of it', async () => {
    const harness = await booted();
    const { key, entry } = await created(harness, 'deploy', 'admin');
    expect(key).toMatch(KEY);
    expect(entry).toEqual({
      name: 'deploy',
      scope: 'admin',
      createdAt: harness.clock.now(),
      expiresAt: null,
      lastUsedAt: null,
      expired: false,
    });
    const record = await harness.store.record.readRecord();
    expect(record?.apiKeys).toEqual([
      { name: 'deploy', scope: 'admin', keyHash: await apiKeyHash(key), createdAt: harness.clock.now(), expiresAt: null, lastUsedAt: null },
    ]);
    expect(JSON.stringify(record)).not.toContain(key.slice(3));
    expect(await apiKeyHash(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives every key its own random value', async () => {
    const harness = await booted();
    const a = await created(harness, 'a');
    const b = await created(harness, 'b');
    expect(a.key).not.toBe(b.key);
  });

  it('refuses a taken name, a malformed name and one key too many, changing nothing', async () => {
    const harness = await booted();
    await created(harness, 'monitor');
    const before = await harness.store.record.readRecord();
    expect(await harness.keys.create({ name: 'monitor', scope: 'admin', lifetimeMs: null })).toEqual({
      ok: false,
      error: 'key_name_taken',
    });
    for (const name of ['', ' x', '-leading-dash', 'has space', 'a/b', 'x'.repeat(65), 'ünïcode']) {
      expect(await harness.keys.create({ name, scope: 'read', lifetimeMs: null })).toEqual({ ok: false, error: 'invalid_key_name' });
    }
    expect(await harness.store.record.readRecord()).toEqual(before);
    for (let i = 1; i < MAX_API_KEYS; i++) await created(harness, `k${i}`);
    expect(await harness.keys.create({ name: 'one-too-many', scope: 'read', lifetimeMs: null })).toEqual({
      ok: false,
      error: 'too_many_keys',
    });
  });
});

describe('ApiKeys.check and expiry (fake clock)', () => {
  it('accepts the key until 1 ms before it expires, then reports it expired by name', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'ci', 'read', 90 * DAY);
    harness.clock.advance(90 * DAY - 1);
    expect((await harness.keys.check(key)).kind).toBe('valid');
    harness.clock.advance(1);
    const check = await harness.keys.check(key);
    expect(check).toMatchObject({ kind: 'expired', entry: { name: 'ci', expired: true } });
    expect((await harness.keys.list())[0]?.expired).toBe(true);
  });

  it('does not know a wrong key, a token-shaped value or a key one character off', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'ci');
    const oneOff = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const presented of [oneOff, harness.token, '', 'wk_short', key + 'x'])
      expect(await harness.keys.check(presented)).toEqual({ kind: 'unknown' });
  });

  it('writes last use on first use, then at most once a minute, and reports the first use once', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'ci');
    const lastUsed = async () => (await harness.store.record.readRecord())?.apiKeys?.[0]?.lastUsedAt;
    const start = harness.clock.now();
    const [first, second] = await Promise.all([harness.keys.check(key), harness.keys.check(key)]);
    expect([first, second].filter((check) => check.kind === 'valid' && check.firstUse)).toHaveLength(1);
    expect(await lastUsed()).toBe(start);

    let writes = 0;
    const unsubscribe = harness.store.record.onRecordChanged(() => writes++);
    harness.clock.advance(LAST_USED_RESOLUTION_MS - 1);
    expect(await harness.keys.check(key)).toMatchObject({ kind: 'valid', firstUse: false });
    expect(writes).toBe(0);
    harness.clock.advance(1);
    await harness.keys.check(key);
    expect(writes).toBe(1);
    expect(await lastUsed()).toBe(start + LAST_USED_RESOLUTION_MS);
    unsubscribe();
  });
});

describe('ApiKeys.revoke', () => {
  it('removes one key by name, at once; an unknown name revokes nothing', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'ci');
    await created(harness, 'other');
    expect(await harness.keys.revoke('nope')).toBeNull();
    expect(await harness.keys.revoke('ci')).toMatchObject({ name: 'ci' });
    expect(await harness.keys.check(key)).toEqual({ kind: 'unknown' });
    expect((await harness.keys.list()).map((entry) => entry.name)).toEqual(['other']);
  });

  it('revokeAll removes every key, and a token change removes none', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'a');
    await created(harness, 'b');
    await harness.tokens.regenerate();
    await harness.tokens.update('Another-Token-42!');
    expect((await harness.keys.check(key)).kind).toBe('valid');
    expect((await harness.keys.revokeAll()).map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(await harness.keys.list()).toEqual([]);
  });
});

describe('Credentials', () => {
  it('authenticates the access token and a key, and names an expired key', async () => {
    const harness = await booted();
    const { key } = await created(harness, 'ops', 'admin', DAY);
    expect(await harness.credentials.authenticate(harness.token)).toMatchObject({
      ok: true,
      principal: { kind: 'token', session: harness.token },
    });
    const byKey = await harness.credentials.authenticate(key);
    expect(byKey).toMatchObject({ ok: true, principal: { kind: 'key', name: 'ops', scope: 'admin', firstUse: true } });
    expect(await harness.credentials.authenticate('wrong-token-value')).toEqual({ ok: false });
    harness.clock.advance(DAY);
    expect(await harness.credentials.authenticate(key)).toEqual({ ok: false, expiredKey: 'ops' });
  });

  it("a key's WebSocket tickets end when the key is revoked, and a revoked key cannot get one", async () => {
    const harness = await booted();
    const { key } = await created(harness, 'dash');
    const auth = await harness.credentials.authenticate(key);
    if (!auth.ok) throw new Error('key refused');
    const issued = await harness.tickets.issue(auth.principal.session);
    if (!issued.ok) throw new Error('ticket refused');
    const spare = await harness.tickets.issue(auth.principal.session);
    if (!spare.ok) throw new Error('ticket refused');
    // The socket's principal is the key's, as the record has it now; opening it is no first use.
    expect(await harness.tickets.redeem(issued.value.ticket)).toEqual({
      ok: true,
      value: {
        sessionToken: auth.principal.session,
        principal: { kind: 'key', session: auth.principal.session, name: 'dash', scope: 'read', firstUse: false },
      },
    });
    await harness.keys.revoke('dash');
    expect((await harness.tickets.redeem(spare.value.ticket)).ok).toBe(false);
    expect(await harness.tickets.issue(auth.principal.session)).toEqual({ ok: false, error: 'invalid_session' });
    // The access token's tickets are untouched by a key's revocation.
    expect((await harness.tickets.issue(harness.token)).ok).toBe(true);
  });
});

describe('Credentials.principalOf', () => {
  it("names the token's and a key's principal while their session is valid, null after", async () => {
    const harness = await booted();
    const { key } = await created(harness, 'board', 'admin', DAY);
    const auth = await harness.credentials.authenticate(key);
    if (!auth.ok) throw new Error('key refused');
    const session = auth.principal.session;
    expect(await harness.credentials.principalOf(session)).toEqual({
      kind: 'key',
      session,
      name: 'board',
      scope: 'admin',
      firstUse: false,
    });
    expect(await harness.credentials.principalOf(harness.token)).toEqual({
      kind: 'token',
      session: harness.token,
      status: { tokenSource: 'temporary', requiresCustomToken: true },
    });
    expect(await harness.credentials.principalOf('not-a-session')).toBeNull();
    expect(await harness.credentials.principalOf(key)).toBeNull();
    harness.clock.advance(DAY);
    expect(await harness.credentials.principalOf(session)).toBeNull();
    await harness.tokens.regenerate();
    expect(await harness.credentials.principalOf(harness.token)).toBeNull();
  });
});

describe('permits (scopes)', () => {
  const token: Principal = { kind: 'token', session: 't', status: { tokenSource: 'configured', requiresCustomToken: false } };
  const key = (scope: 'read' | 'admin'): Principal => ({ kind: 'key', session: 'k', name: 'k', scope, firstUse: false });
  const table: Array<[Principal, Record<Permission, boolean>]> = [
    [token, { read: true, admin: true, manage_keys: true, change_token: true }],
    [key('admin'), { read: true, admin: true, manage_keys: false, change_token: false }],
    [key('read'), { read: true, admin: false, manage_keys: false, change_token: false }],
  ];
  it.each(table)('%o', (principal, expected) => {
    for (const [permission, allowed] of Object.entries(expected))
      expect(permits(principal, permission as Permission), permission).toBe(allowed);
  });
});
