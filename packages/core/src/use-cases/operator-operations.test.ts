import { describe, expect, it } from 'vitest';
import { createCoreHarness } from '../testing/core-harness.js';
import { RecordingEventSink } from '../testing/recording-sinks.js';
import { createOperatorOperations } from './operator-operations.js';

const API_KEY_ACTOR = { address: '203.0.113.7', via: 'api', credential: 'key' } as const;
const TOKEN_ACTOR = { address: '203.0.113.7', via: 'api', credential: 'token' } as const;
const CLI = { address: null, via: 'cli' } as const;

async function setUp() {
  const core = createCoreHarness();
  await core.tokens.bootstrap();
  const sink = new RecordingEventSink();
  return { core, sink, ops: createOperatorOperations(core, { sink }) };
}

async function ban(core: Awaited<ReturnType<typeof setUp>>['core'], ip: string) {
  for (let i = 0; i < 5; i++) await core.bans.recordFailure(ip);
}

describe('bans', () => {
  it('lists bans with the budget', async () => {
    const { core, ops } = await setUp();
    await ban(core, '198.51.100.1');
    const { outcome } = await ops.listBans();
    expect(outcome.bans).toEqual([expect.objectContaining({ key: '198.51.100.1' })]);
    expect(outcome.budget).toMatchObject({ state: 'open' });
  });

  it('an API key may not lift its own ban (all included): own_ban, a notice and nothing lifted; the token and the CLI may', async () => {
    const { core, ops, sink } = await setUp();
    await ban(core, API_KEY_ACTOR.address);
    for (const target of [API_KEY_ACTOR.address, 'all', '203.0.113.0/24']) {
      expect((await ops.liftBan(target, API_KEY_ACTOR)).outcome).toEqual({ ok: false, error: 'own_ban' });
    }
    expect(sink.events.map((event) => event.event)).toEqual(['ban_lift_refused', 'ban_lift_refused', 'ban_lift_refused']);
    expect(await core.bans.list()).toHaveLength(1);
    const lifted = await ops.liftBan('all', TOKEN_ACTOR);
    expect(lifted.outcome).toMatchObject({ ok: true, value: [{ key: API_KEY_ACTOR.address }] });
    expect(lifted.events).toEqual([
      { event: 'ban_lifted', target: 'all', lifted: [API_KEY_ACTOR.address], address: TOKEN_ACTOR.address, via: 'api' },
    ]);
    expect((await ops.liftBan('all', CLI)).events).toEqual([
      { event: 'ban_lift_matched_nothing', target: 'all', address: null, via: 'cli' },
    ]);
  });

  it('refuses a target that is no address, CIDR or key, with no event', async () => {
    const { ops } = await setUp();
    expect(await ops.liftBan('not an address', CLI)).toEqual({ outcome: { ok: false, error: 'invalid_ban_target' }, events: [] });
  });

  it('resets the budget: how many failures it forgot, the budget after, and a budget_reset event', async () => {
    const { core, ops } = await setUp();
    await core.bans.recordFailure('198.51.100.1');
    await core.bans.recordFailure('198.51.100.2');
    const { outcome, events } = await ops.resetBudget(CLI);
    expect(outcome).toMatchObject({ cleared: 2, budget: { failures: 0 } });
    expect(events).toEqual([{ event: 'budget_reset', cleared: 2, address: null, via: 'cli' }]);
  });
});

describe('keys', () => {
  it('creates a key with an expiry as operators type it, and says so in a key_created event', async () => {
    const { core, ops } = await setUp();
    const created = await ops.createKey({ name: 'ci', scope: 'admin', expires: '1d' }, CLI);
    if (!created.outcome.ok) throw new Error(created.outcome.error);
    expect(created.outcome.value.key).toMatch(/^wk_/);
    expect(created.events).toEqual([
      {
        event: 'key_created',
        key: 'ci',
        scope: 'admin',
        expires_at: new Date(core.clock.now() + 86_400_000).toISOString(),
        address: null,
        via: 'cli',
      },
    ]);
    expect((await ops.listKeys()).outcome.map((entry) => entry.name)).toEqual(['ci']);
  });

  it('refuses an expiry it cannot read and a name taken, with no event', async () => {
    const { ops } = await setUp();
    expect(await ops.createKey({ name: 'ci', scope: 'read', expires: '90 days' }, CLI)).toEqual({
      outcome: { ok: false, error: 'invalid_expiry' },
      events: [],
    });
    await ops.createKey({ name: 'ci', scope: 'read', expires: null }, CLI);
    expect(await ops.createKey({ name: 'ci', scope: 'read', expires: null }, CLI)).toEqual({
      outcome: { ok: false, error: 'key_name_taken' },
      events: [],
    });
  });

  it('revokes one key or all of them, one key_revoked event each; an unknown name is null', async () => {
    const { ops } = await setUp();
    for (const name of ['a', 'b', 'c']) await ops.createKey({ name, scope: 'read', expires: null }, CLI);
    expect(await ops.revokeKey('nope', CLI)).toEqual({ outcome: null, events: [] });
    const one = await ops.revokeKey('a', TOKEN_ACTOR);
    expect(one.outcome).toMatchObject({ name: 'a' });
    expect(one.events).toEqual([{ event: 'key_revoked', key: 'a', address: TOKEN_ACTOR.address, via: 'api' }]);
    expect((await ops.revokeAllKeys(CLI)).events.map((event) => event.event === 'key_revoked' && event.key)).toEqual(['b', 'c']);
  });
});

describe('token and first setup', () => {
  it('changes the token, refusing a weak one with every rule it broke', async () => {
    const { ops, core } = await setUp();
    expect((await ops.changeToken('short', CLI)).outcome).toMatchObject({ ok: false, error: expect.arrayContaining(['too_short']) });
    const changed = await ops.changeToken('Abc;def,ghi!9', CLI);
    expect(changed).toEqual({
      outcome: { ok: true, value: undefined },
      events: [{ event: 'token_changed', how: 'update', address: null, via: 'cli' }],
    });
    expect(await core.tokens.verify('Abc;def,ghi!9')).toBe(true);
  });

  it('regenerates the token and returns it once', async () => {
    const { ops, core } = await setUp();
    const { outcome, events } = await ops.regenerateToken(CLI);
    expect(await core.tokens.verify(outcome)).toBe(true);
    expect(events).toEqual([{ event: 'token_changed', how: 'regenerate', address: null, via: 'cli' }]);
  });

  it('completes and resets the first setup, with the status between', async () => {
    const { ops } = await setUp();
    expect((await ops.setupStatus()).outcome).toMatchObject({ isFirstSetup: true, status: { tokenSource: 'temporary' } });
    expect(await ops.completeSetup(CLI)).toEqual({ outcome: false, events: [{ event: 'setup_completed', address: null, via: 'cli' }] });
    expect(await ops.resetSetup(CLI)).toEqual({ outcome: true, events: [{ event: 'setup_reset', address: null, via: 'cli' }] });
  });
});
