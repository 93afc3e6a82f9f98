import { describe, expect, it } from 'vitest';
import { isPending } from '../ports/awaitable.js';
import { StoreUnavailableError } from '../ports/store.js';
import { createCoreHarness } from '../testing/core-harness.js';
import { RecordingEventSink } from '../testing/recording-sinks.js';
import { createAccessOperations } from './access-operations.js';
import type { PresentedCredentials } from './presented-credentials.js';

const CLIENT = { ip: '203.0.113.7' };
const none: PresentedCredentials = { cookies: [], bearer: null, severalAuthorizations: false };
const cookie = (value: string): PresentedCredentials => ({ ...none, cookies: [{ raw: value, tokens: [value] }] });
const bearer = (value: string): PresentedCredentials => ({ ...none, bearer: value });

async function setUp(options: { globalFailureBudget?: number } = {}) {
  const core = createCoreHarness(
    options.globalFailureBudget === undefined ? {} : { banPolicy: { globalFailureBudget: options.globalFailureBudget } },
  );
  const boot = await core.tokens.bootstrap();
  const token = boot.temporaryToken as string;
  const sink = new RecordingEventSink();
  const pauses: number[] = [];
  const ops = createAccessOperations(core, { sink, pause: async (ms) => void pauses.push(ms) });
  return { core, token, sink, pauses, ops };
}

describe('login', () => {
  it('logs in with the token: the status, is_first_setup, and one login_succeeded event naming the token source', async () => {
    const { ops, token, sink } = await setUp();
    const { outcome, events } = await ops.login(token, CLIENT);
    expect(outcome).toEqual({ kind: 'valid', status: { tokenSource: 'temporary', requiresCustomToken: true }, isFirstSetup: true });
    expect(events).toEqual([{ event: 'login_succeeded', address: CLIENT.ip, via: 'api', how: 'verify', tokenSource: 'temporary' }]);
    expect(sink.events).toEqual(events);
  });

  it('counts wrong tokens, reminds when 2 or fewer are left, and the fifth bans with its login_failed and ban_started events', async () => {
    const { ops } = await setUp();
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await ops.login(`wrong-${i}`, CLIENT)).outcome);
    expect(outcomes).toEqual([
      { kind: 'invalid', remainingAttempts: null },
      { kind: 'invalid', remainingAttempts: null },
      { kind: 'invalid', remainingAttempts: 2 },
      { kind: 'invalid', remainingAttempts: 1 },
    ]);
    const fifth = await ops.login('wrong-4', CLIENT);
    expect(fifth.outcome).toEqual({ kind: 'banned', retryAfterSeconds: 600 });
    expect(fifth.events).toEqual([
      { event: 'login_failed', address: CLIENT.ip, via: 'api', how: 'verify', counted: true, remaining: 0 },
      { event: 'ban_started', address: CLIENT.ip, via: 'api', how: 'verify', retry_after: 600 },
    ]);
  });

  it('refuses a banned client before comparing, even the right token, with no event', async () => {
    const { ops, token } = await setUp();
    for (let i = 0; i < 5; i++) await ops.login(`wrong-${i}`, CLIENT);
    expect(await ops.login(token, CLIENT)).toEqual({ outcome: { kind: 'refused', retryAfterSeconds: 600, scope: 'address' }, events: [] });
  });

  it("waits out the global budget's delay through the pause port, and turns clients away past twice the budget", async () => {
    const { ops, pauses } = await setUp({ globalFailureBudget: 2 });
    const outcomes = [];
    for (let i = 1; i <= 5; i++) outcomes.push((await ops.login('wrong', { ip: `198.51.100.${i}` })).outcome.kind);
    expect(outcomes).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'refused']);
    expect(pauses.length).toBeGreaterThan(0);
    expect((await ops.login('wrong', { ip: '198.51.100.9' })).outcome).toMatchObject({ kind: 'refused', scope: 'server' });
  });
});

describe('authenticate', () => {
  it('no credential is nobody, with no event', async () => {
    const { ops } = await setUp();
    expect(await ops.authenticate(none, CLIENT)).toEqual({ outcome: { kind: 'none' }, events: [] });
  });

  it('a cookie holding the token is the token principal; a wrong one is counted as a guess', async () => {
    const { ops, token } = await setUp();
    expect((await ops.authenticate(cookie(token), CLIENT)).outcome).toMatchObject({
      kind: 'valid',
      via: 'cookie',
      principal: { kind: 'token', session: token },
    });
    const wrong = await ops.authenticate(cookie('guess'), CLIENT);
    expect(wrong).toEqual({
      outcome: { kind: 'invalid', via: 'cookie' },
      events: [{ event: 'login_failed', address: CLIENT.ip, via: 'api', how: 'cookie', counted: true, remaining: 4 }],
    });
    // The same wrong value again counts once per window, and is not reported.
    expect(await ops.authenticate(cookie('guess'), CLIENT)).toEqual({ outcome: { kind: 'invalid', via: 'cookie' }, events: [] });
  });

  it('a bearer key is the key principal, its first use an event; an expired key is a guess that names it', async () => {
    const { core, ops } = await setUp();
    const created = await core.keys.create({ name: 'ci', scope: 'read', lifetimeMs: 60_000 });
    if (!created.ok) throw new Error('key refused');
    const first = await ops.authenticate(bearer(created.value.key), CLIENT);
    expect(first.outcome).toMatchObject({ kind: 'valid', via: 'bearer', principal: { kind: 'key', name: 'ci', scope: 'read' } });
    expect(first.events).toEqual([{ event: 'key_first_used', address: CLIENT.ip, via: 'api', key: 'ci' }]);
    expect((await ops.authenticate(bearer(created.value.key), CLIENT)).events).toEqual([]);
    core.clock.advance(60_000);
    expect(await ops.authenticate(bearer(created.value.key), CLIENT)).toEqual({
      outcome: { kind: 'invalid', via: 'bearer' },
      events: [
        {
          event: 'login_failed',
          address: CLIENT.ip,
          via: 'api',
          how: 'bearer',
          key: 'ci',
          counted: true,
          remaining: 4,
          reason: 'expired_key',
        },
      ],
    });
  });

  it('an empty bearer guesses nothing: invalid, not counted', async () => {
    const { ops, core } = await setUp();
    expect(await ops.authenticate(bearer(''), CLIENT)).toEqual({ outcome: { kind: 'invalid', via: 'bearer' }, events: [] });
    expect(await core.bans.list()).toEqual([]);
  });

  it.each([
    [
      'two cookies',
      {
        ...none,
        cookies: [
          { raw: 'a', tokens: ['a'] },
          { raw: 'a', tokens: ['a'] },
        ],
      },
      'duplicate_credentials',
      'cookie',
    ],
    ['two Authorization fields', { ...none, bearer: 'a', severalAuthorizations: true }, 'duplicate_credentials', 'bearer'],
    [
      'a cookie and a different bearer',
      { cookies: [{ raw: 'a', tokens: ['a'] }], bearer: 'b', severalAuthorizations: false },
      'conflicting_credentials',
      'bearer',
    ],
  ] as const)('%s: refused with none compared, counted as one guess', async (_name, presented, code, how) => {
    const { ops, token } = await setUp();
    const withToken = { ...presented, cookies: presented.cookies.map(() => ({ raw: token, tokens: [token] })) };
    const result = await ops.authenticate(code === 'conflicting_credentials' ? presented : withToken, CLIENT);
    expect(result.outcome).toEqual({ kind: 'ambiguous', code });
    expect(result.events).toEqual([{ event: 'login_failed', address: CLIENT.ip, via: 'api', how, counted: true, remaining: 4 }]);
  });

  it('a cookie and the same bearer are one credential', async () => {
    const { ops, token } = await setUp();
    expect(
      (await ops.authenticate({ cookies: [{ raw: token, tokens: [token] }], bearer: token, severalAuthorizations: false }, CLIENT)).outcome,
    ).toMatchObject({ kind: 'valid', via: 'bearer' });
  });

  it('the request that bans is refused; a banned client is refused before the rule is applied', async () => {
    const { ops } = await setUp();
    const twoCookies: PresentedCredentials = {
      ...none,
      cookies: [
        { raw: 'a', tokens: ['a'] },
        { raw: 'b', tokens: ['b'] },
      ],
    };
    for (let i = 0; i < 4; i++) expect((await ops.authenticate(twoCookies, CLIENT)).outcome.kind).toBe('ambiguous');
    expect((await ops.authenticate(twoCookies, CLIENT)).outcome).toEqual({ kind: 'refused', retryAfterSeconds: 600, scope: 'address' });
    expect(await ops.authenticate(twoCookies, CLIENT)).toEqual({
      outcome: { kind: 'refused', retryAfterSeconds: 600, scope: 'address' },
      events: [],
    });
  });
});

describe('a store that cannot answer the admission', () => {
  it('answers every credential alike, right or wrong, cookie or bearer: the store error, with nothing compared or counted', async () => {
    const { core, ops, token, sink } = await setUp();
    const created = await core.keys.create({ name: 'ci', scope: 'admin', lifetimeMs: null });
    if (!created.ok) throw new Error('key refused');
    expect((await ops.checkSession(cookie(token), CLIENT)).outcome.kind).toBe('valid');
    const readClient = core.store.attempts.readClient;
    core.store.attempts.readClient = () => Promise.reject(new StoreUnavailableError('cannot reach the store'));
    const statuses = core.tokens.statusFor;
    let compared = 0;
    core.tokens.statusFor = (secret) => {
      compared += 1;
      return statuses.call(core.tokens, secret);
    };
    for (const presented of [cookie(token), cookie('wrong'), bearer(created.value.key), bearer('wk_wrong'), bearer(token)]) {
      await expect(ops.checkSession(presented, CLIENT)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(ops.authenticate(presented, CLIENT)).rejects.toBeInstanceOf(StoreUnavailableError);
    }
    await expect(ops.issueTicket(cookie(token), CLIENT)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(ops.login(token, CLIENT)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(compared).toBe(0);
    expect(sink.events).toEqual([]);
    core.store.attempts.readClient = readClient;
    expect(await core.store.attempts.readAttempts('203.0.113.7')).toBeNull();
  });
});

describe('checkSession', () => {
  it('carries the token status for the token and for a key', async () => {
    const { core, ops, token } = await setUp();
    expect((await ops.checkSession(cookie(token), CLIENT)).outcome).toMatchObject({
      kind: 'valid',
      tokenStatus: { tokenSource: 'temporary' },
    });
    const created = await core.keys.create({ name: 'ci', scope: 'admin', lifetimeMs: null });
    if (!created.ok) throw new Error('key refused');
    expect((await ops.checkSession(bearer(created.value.key), CLIENT)).outcome).toMatchObject({
      kind: 'valid',
      principal: { kind: 'key' },
      tokenStatus: { tokenSource: 'temporary' },
    });
    expect((await ops.checkSession(none, CLIENT)).outcome).toEqual({ kind: 'none' });
  });

  it('answers at once on a store that answers at once, and the same later on one that answers later', async () => {
    const { core, ops, token } = await setUp();
    await ops.login(token, CLIENT);
    // The dashboard's poll after its login, on the memory store (as on the JSON file): no promise on the way.
    const now = ops.checkSession(cookie(token), CLIENT);
    expect(isPending(now)).toBe(false);
    expect(isPending(ops.authenticate(cookie(token), CLIENT))).toBe(false);
    expect((await now).outcome).toMatchObject({ kind: 'valid', tokenStatus: { tokenSource: 'temporary' } });
    // A wrong cookie is a guess to count: that is written, so it is answered later.
    expect(isPending(ops.checkSession(cookie('a-wrong-cookie'), CLIENT))).toBe(true);
    // A store across the network (Redis) answers its reads later: the same outcome, through a promise.
    const readClient = core.store.attempts.readClient.bind(core.store.attempts);
    core.store.attempts.readClient = (key) => Promise.resolve(readClient(key));
    const later = ops.checkSession(cookie(token), CLIENT);
    expect(isPending(later)).toBe(true);
    expect((await later).outcome).toEqual((await now).outcome);
  });

  it('fails as a rejected promise when a step throws at once, never a throw', async () => {
    const { core, ops, token } = await setUp();
    await ops.login(token, CLIENT);
    core.store.record.readRecord = () => {
      throw new Error('the record cannot be read');
    };
    const answer = ops.checkSession(cookie(token), CLIENT);
    expect(isPending(answer)).toBe(true);
    await expect(answer).rejects.toThrow('the record cannot be read');
  });
});

describe('tickets', () => {
  it('issues a ticket to a valid session and redeems it once', async () => {
    const { ops, token } = await setUp();
    const issued = (await ops.issueTicket(cookie(token), CLIENT)).outcome;
    if (issued.kind !== 'issued') throw new Error(`no ticket: ${issued.kind}`);
    expect(issued.expiresIn).toBe(60);
    expect((await ops.redeemTicket([issued.ticket], CLIENT)).outcome).toEqual({
      kind: 'redeemed',
      sessionToken: token,
      principal: { kind: 'token', session: token, status: { tokenSource: 'temporary', requiresCustomToken: true } },
    });
    expect((await ops.redeemTicket([issued.ticket], CLIENT)).outcome).toEqual({ kind: 'rejected', reason: 'unknown_ticket' });
  });

  it('answers a missing session with its authentication, a stale one with session_invalid', async () => {
    const { ops, core, token } = await setUp();
    expect((await ops.issueTicket(none, CLIENT)).outcome).toEqual({ kind: 'none' });
    // Revoked between the check and the issue: the issuer's own check refuses it.
    const racing = createAccessOperations(
      {
        ...core,
        tickets: { ...core.tickets, issue: async () => ({ ok: false, error: 'invalid_session' }) } as unknown as typeof core.tickets,
      },
      { sink: new RecordingEventSink(), pause: async () => undefined },
    );
    expect((await racing.issueTicket(cookie(token), CLIENT)).outcome).toEqual({ kind: 'session_invalid' });
  });

  it('no ticket is missing; several are one guess with none redeemed', async () => {
    const { ops, token } = await setUp();
    expect((await ops.redeemTicket([], CLIENT)).outcome).toEqual({ kind: 'missing' });
    const issued = (await ops.issueTicket(cookie(token), CLIENT)).outcome;
    if (issued.kind !== 'issued') throw new Error('no ticket');
    const twice = await ops.redeemTicket([issued.ticket, issued.ticket], CLIENT);
    expect(twice).toEqual({
      outcome: { kind: 'ambiguous', code: 'duplicate_credentials' },
      events: [{ event: 'login_failed', address: CLIENT.ip, via: 'api', how: 'ticket', counted: true, remaining: 4 }],
    });
    expect((await ops.redeemTicket([issued.ticket], CLIENT)).outcome).toMatchObject({ kind: 'redeemed', sessionToken: token });
    for (let i = 0; i < 4; i++) await ops.redeemTicket(['a', 'b'], CLIENT);
    expect((await ops.redeemTicket(['a', 'b'], CLIENT)).outcome).toEqual({ kind: 'refused', retryAfterSeconds: 600, scope: 'address' });
  });

  it("a banned address's ticket is refused before it is looked at, and stays unspent for the address it was issued to", async () => {
    const { ops, token } = await setUp();
    const issued = (await ops.issueTicket(cookie(token), { ip: '198.51.100.1' })).outcome;
    if (issued.kind !== 'issued') throw new Error('no ticket');
    for (let i = 0; i < 5; i++) await ops.login(`wrong-${i}`, CLIENT);
    expect(await ops.redeemTicket([issued.ticket], CLIENT)).toEqual({
      outcome: { kind: 'refused', retryAfterSeconds: 600, scope: 'address' },
      events: [],
    });
    expect((await ops.redeemTicket([issued.ticket], { ip: '198.51.100.1' })).outcome).toMatchObject({ kind: 'redeemed' });
  });
});
