import { describe, expect, it } from 'vitest';
import { createCore } from '../create-core.js';
import { MemoryRecord } from '../memory/memory-record.js';
import { MemoryShortLivedState } from '../memory/memory-short-lived-state.js';
import { createCoreHarness } from '../testing/core-harness.js';
import { FakeClock } from '../testing/fake-clock.js';
import { SeededRandom } from '../testing/seeded-random.js';
import { TICKET_TTL_SECONDS } from './ws-ticket-issuer.js';
import { overwriteRecord } from '../testing/overwrite-record.js';

const TICKET = /^[A-Za-z0-9_-]{43}$/;

async function bootedHarness(options: Parameters<typeof createCoreHarness>[0] = {}) {
  const harness = createCoreHarness(options);
  const outcome = await harness.tokens.bootstrap();
  return { ...harness, token: outcome.temporaryToken as string };
}

async function issued(harness: Awaited<ReturnType<typeof bootedHarness>>, sessionToken = harness.token): Promise<string> {
  const result = await harness.tickets.issue(sessionToken);
  if (!result.ok) throw new Error(`issue refused: ${result.error}`);
  return result.value.ticket;
}

describe('WsTicketIssuer: none -> issued', () => {
  it('refuses an invalid session and stores nothing', async () => {
    const harness = await bootedHarness();
    expect(await harness.tickets.issue('not-the-token')).toEqual({ ok: false, error: 'invalid_session' });
    expect(await harness.tickets.issue('')).toEqual({ ok: false, error: 'invalid_session' });
    expect(harness.store.size.tickets).toBe(0);
  });

  it('refuses before any token exists', async () => {
    const { tickets } = createCoreHarness();
    expect(await tickets.issue('anything')).toEqual({ ok: false, error: 'invalid_session' });
  });

  it('issues a 43-character URL-safe ticket from 32 random bytes, expires_in 60', async () => {
    const harness = await bootedHarness();
    const result = await harness.tickets.issue(harness.token);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.ticket).toMatch(TICKET);
    expect(result.value.expiresIn).toBe(60);
    expect(TICKET_TTL_SECONDS).toBe(60);
  });

  it('every ticket is different', async () => {
    const harness = await bootedHarness();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) seen.add(await issued(harness));
    expect(seen.size).toBe(200);
    for (const ticket of seen) expect(ticket).toMatch(TICKET);
  });
});

describe('WsTicketIssuer: issued -> consumed / rejected / expired', () => {
  it('redeemed 59 s after issue: accepted, bound to its session token, with the principal the token is', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    harness.clock.advanceSeconds(59);
    expect(await harness.tickets.redeem(ticket)).toEqual({
      ok: true,
      value: {
        sessionToken: harness.token,
        principal: { kind: 'token', session: harness.token, status: { tokenSource: 'temporary', requiresCustomToken: true } },
      },
    });
    expect(harness.store.size.tickets).toBe(0);
  });

  it('redeemed 61 s after issue: expired_ticket', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    harness.clock.advanceSeconds(61);
    expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'expired_ticket' });
    expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('valid up to 59.999 s; at exactly 60 s it has expired', async () => {
    const harness = await bootedHarness();
    const early = await issued(harness);
    const late = await issued(harness);
    harness.clock.advance(60_000 - 1);
    expect((await harness.tickets.redeem(early)).ok).toBe(true);
    harness.clock.advance(1);
    expect(await harness.tickets.redeem(late)).toEqual({ ok: false, error: 'expired_ticket' });
  });

  it('consumed -> any reuse is rejected (replay prevented)', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    expect((await harness.tickets.redeem(ticket)).ok).toBe(true);
    expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
    expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('concurrent redeems of one ticket: exactly one wins', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    const results = await Promise.all(Array.from({ length: 10 }, () => harness.tickets.redeem(ticket)));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });

  it('a ticket that was never issued is unknown', async () => {
    const harness = await bootedHarness();
    expect(await harness.tickets.redeem('A'.repeat(43))).toEqual({ ok: false, error: 'unknown_ticket' });
    expect(await harness.tickets.redeem('')).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('issued under a token that was then rotated: refused', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    await harness.tokens.regenerate();
    const result = await harness.tickets.redeem(ticket);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(['session_revoked', 'unknown_ticket']).toContain(result.error);
  });

  it('issued under a token replaced outside the service (another process, a hand edit): gone as soon as the store reports it', async () => {
    const harness = await bootedHarness();
    const ticket = await issued(harness);
    const record = await harness.store.record.readRecord();
    await overwriteRecord(harness.store.record, { ...record!, accessToken: 'Edited-By-Hand-1!' });
    expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('issued under a token replaced by a change the store has not reported yet (a shared store lagging): session_revoked', async () => {
    // A store whose change notices never arrive: redeeming must still check the token itself.
    class UnreportedChanges extends MemoryRecord {
      override onRecordChanged(): () => void {
        return () => undefined;
      }
    }
    const clock = new FakeClock();
    const store = new MemoryShortLivedState(clock).storeWith(new UnreportedChanges());
    const core = createCore({ store, clock, random: new SeededRandom(2) });
    const token = (await core.tokens.bootstrap()).temporaryToken as string;
    const ticket = await core.tickets.issue(token);
    if (!ticket.ok) throw new Error('no ticket');
    await overwriteRecord(store.record, { ...(await store.record.readRecord())!, accessToken: 'Edited-By-Hand-1!' });
    expect(await core.tickets.redeem(ticket.value.ticket)).toEqual({ ok: false, error: 'session_revoked' });
  });

  it('60 s pass unused: removed from memory by the sweep', async () => {
    const harness = await bootedHarness();
    await issued(harness);
    await issued(harness);
    harness.clock.advanceSeconds(59);
    harness.store.sweep();
    expect(harness.store.size.tickets).toBe(2);
    harness.clock.advanceSeconds(1);
    harness.store.sweep();
    expect(harness.store.size.tickets).toBe(0);
  });
});

describe('WsTicketIssuer: bounded memory (docs/decisions/0014-bounded-memory.md)', () => {
  it('the per-session cap evicts the oldest ticket of the session', async () => {
    const harness = await bootedHarness({ limits: { maxTicketsPerSession: 3 } });
    const tickets = [];
    for (let i = 0; i < 4; i++) tickets.push(await issued(harness));
    expect(harness.store.size.tickets).toBe(3);
    expect(await harness.tickets.redeem(tickets[0] as string)).toEqual({ ok: false, error: 'unknown_ticket' });
    for (const ticket of tickets.slice(1)) expect((await harness.tickets.redeem(ticket)).ok).toBe(true);
  });

  it('a per-session cap of one keeps only the newest ticket', async () => {
    const harness = await bootedHarness({ limits: { maxTicketsPerSession: 1 } });
    const first = await issued(harness);
    const second = await issued(harness);
    expect(harness.store.size.tickets).toBe(1);
    expect(await harness.tickets.redeem(first)).toEqual({ ok: false, error: 'unknown_ticket' });
    expect((await harness.tickets.redeem(second)).ok).toBe(true);
  });

  it('the global cap holds and evicts the oldest ticket overall', async () => {
    const harness = await bootedHarness({ limits: { maxTickets: 5, maxTicketsPerSession: 100 } });
    const tickets = [];
    for (let i = 0; i < 8; i++) tickets.push(await issued(harness));
    expect(harness.store.size.tickets).toBe(5);
    for (const ticket of tickets.slice(0, 3)) expect(await harness.tickets.redeem(ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
    for (const ticket of tickets.slice(3)) expect((await harness.tickets.redeem(ticket)).ok).toBe(true);
  });

  it('at the global cap, expired tickets are swept before a live one is evicted', async () => {
    const harness = await bootedHarness({ limits: { maxTickets: 5, maxTicketsPerSession: 100 } });
    for (let i = 0; i < 4; i++) await issued(harness);
    harness.clock.advanceSeconds(61);
    const live = await issued(harness);
    const newest = await issued(harness);
    expect(harness.store.size.tickets).toBe(2);
    expect((await harness.tickets.redeem(live)).ok).toBe(true);
    expect((await harness.tickets.redeem(newest)).ok).toBe(true);
  });

  it('100000 tickets asked by one session keep the store at its cap', async () => {
    const harness = await bootedHarness();
    let last = '';
    for (let i = 0; i < 100_000; i++) last = await issued(harness);
    expect(harness.store.size.tickets).toBeLessThanOrEqual(256);
    expect((await harness.tickets.redeem(last)).ok).toBe(true);
  });
});
