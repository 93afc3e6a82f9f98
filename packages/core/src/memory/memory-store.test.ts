import { describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_STORE_LIMITS, MemoryStore } from './memory-store.js';
import type { AttemptRecord, TokenRecord } from '../ports/store.js';
import { FakeClock } from '../testing/fake-clock.js';
import { storeConformanceCases } from '../testing/conformance/store-conformance.js';

describe('MemoryStore passes the shared Store conformance suite', () => {
  for (const testCase of storeConformanceCases(async () => {
    const clock = new FakeClock();
    const store = new MemoryStore(clock);
    // One process, one map: its clients are the store itself.
    return { store, clock, clients: async (count) => Array.from({ length: count }, () => store) };
  })) {
    it(testCase.name, testCase.run);
  }
});

describe('MemoryStore', () => {
  const counting = (at: number): AttemptRecord => ({ failures: [{ at }], lastFailureAt: at });
  // One failure at `at`, kept five minutes (or until keepUntil); with banUntil, the failure starts a ban lasting until then.
  const fail = (store: MemoryStore, key: string, at: number, rule: { keepUntil?: number; banUntil?: number } = {}) =>
    store.attempts.countFailure(key, {
      at,
      windowStart: at - 300_000,
      threshold: rule.banUntil === undefined ? 5 : 1,
      banUntil: rule.banUntil ?? at + 600_000,
      keepUntil: rule.keepUntil ?? at + 300_000,
    });

  it('has the default limits of docs/decisions/0014-bounded-memory.md', () => {
    expect(DEFAULT_MEMORY_STORE_LIMITS).toEqual({
      maxAttemptKeys: 100_000,
      maxTickets: 10_000,
      maxTicketsPerSession: 256,
      maxRecentSuccesses: 10_000,
      maxRetiredTokens: 1_000,
    });
  });

  it('starts from a given record, copied', async () => {
    const record: TokenRecord = { accessToken: 'Initial-Token!', tokenSource: 'configured', firstSetupCompleted: true };
    const store = new MemoryStore(new FakeClock(), { record });
    record.accessToken = 'mutated';
    expect(await store.record.readRecord()).toEqual({
      accessToken: 'Initial-Token!',
      tokenSource: 'configured',
      firstSetupCompleted: true,
    });
    expect(await new MemoryStore(new FakeClock(), { record: null }).record.readRecord()).toBeNull();
  });

  it('sweep drops expired tickets and attempts, and keeps live ones', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock);
    await store.tickets.putTicket('old', { sessionToken: 's', expiresAt: 1_000 });
    await store.tickets.putTicket('new', { sessionToken: 's', expiresAt: 5_000 });
    await fail(store, 'a', 0, { keepUntil: 1_000 });
    await fail(store, 'b', 0, { keepUntil: 5_000 });
    clock.set(1_000);
    store.sweep();
    expect(store.size).toEqual({ attempts: 1, tickets: 1 });
    expect(await store.tickets.consumeTicket('new')).toEqual({ sessionToken: 's', expiresAt: 5_000 });
    expect(await store.attempts.readAttempts('b')).toEqual(counting(0));
  });

  it('full counts refuse a new key and keep the ones counting; counting again keeps a key its place', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 3 } });
    await fail(store, 'a', 0);
    await fail(store, 'b', 0);
    await fail(store, 'c', 0);
    expect(await fail(store, 'a', 1)).toEqual({ kind: 'counted', failures: 2 });
    expect(await fail(store, 'd', 1)).toEqual({ kind: 'full' });
    expect(await store.attempts.readClient('d')).toEqual({ attempts: null, loggedInRecently: false, countsFullUntil: 300_000 });
    expect((await store.attempts.readClient('b')).countsFullUntil).toBeUndefined();
    expect(store.size.attempts).toBe(3);
    expect(await store.attempts.readAttempts('d')).toBeNull();
    expect(await store.attempts.readAttempts('b')).toEqual(counting(0));
    expect((await store.attempts.readAttempts('a'))?.failures).toEqual([{ at: 0 }, { at: 1 }]);
  });

  it('when the counts are full, the expired go first and a new key takes their place', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 2 } });
    await fail(store, 'short', 0, { keepUntil: 1_000 });
    await fail(store, 'long', 0);
    clock.set(1_000);
    expect(await fail(store, 'new', 1_000)).toEqual({ kind: 'counted', failures: 1 });
    expect(await store.attempts.readAttempts('long')).toEqual(counting(0));
    expect(await store.attempts.readAttempts('new')).toEqual(counting(1_000));
  });

  it('running bans are outside the cap: a flood of new keys evicts none, and a ban is kept until it ends', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 2 } });
    const ban: AttemptRecord = { failures: [], bannedUntil: 600_000, lastFailureAt: 0 };
    for (let i = 0; i < 5; i++) await fail(store, `banned-${i}`, 0, { banUntil: 600_000 });
    for (let i = 0; i < 1_000; i++) await fail(store, `flood-${i}`, 0);
    for (let i = 0; i < 5; i++) expect(await store.attempts.readAttempts(`banned-${i}`)).toEqual(ban);
    expect(store.size.attempts).toBe(7);
    // A key counting up to its ban leaves the counts: its place goes to a new key.
    expect(await fail(store, 'flood-0', 1, { banUntil: 600_000 })).toEqual({ kind: 'banned', bannedUntil: 600_000 });
    expect(await fail(store, 'newcomer', 1)).toEqual({ kind: 'counted', failures: 1 });
    clock.set(600_000);
    store.sweep();
    expect(await store.attempts.readAttempts('banned-0')).toBeNull();
  });

  it('tickets are copied in', async () => {
    const store = new MemoryStore(new FakeClock(0));
    const grant = { sessionToken: 's', expiresAt: 1_000 };
    await store.tickets.putTicket('t', grant);
    grant.expiresAt = 99_999;
    expect(await store.tickets.consumeTicket('t')).toEqual({ sessionToken: 's', expiresAt: 1_000 });
  });

  it('per-session caps are per session: one session cannot evict another', async () => {
    const store = new MemoryStore(new FakeClock(0), { limits: { maxTicketsPerSession: 2 } });
    await store.tickets.putTicket('a-1', { sessionToken: 'a', expiresAt: 1_000 });
    await store.tickets.putTicket('b-1', { sessionToken: 'b', expiresAt: 1_000 });
    for (let i = 2; i < 10; i++) await store.tickets.putTicket(`a-${i}`, { sessionToken: 'a', expiresAt: 1_000 });
    expect(store.size.tickets).toBe(3);
    expect(await store.tickets.consumeTicket('b-1')).not.toBeNull();
    expect(await store.tickets.consumeTicket('a-9')).not.toBeNull();
    expect(await store.tickets.consumeTicket('a-1')).toBeNull();
  });

  it('revoking a session after its tickets were consumed or evicted is harmless', async () => {
    const store = new MemoryStore(new FakeClock(0), { limits: { maxTicketsPerSession: 1 } });
    await store.tickets.putTicket('a-1', { sessionToken: 'a', expiresAt: 1_000 });
    await store.tickets.putTicket('a-2', { sessionToken: 'a', expiresAt: 1_000 });
    await store.tickets.consumeTicket('a-2');
    await store.tickets.revokeTickets('a');
    expect(store.size.tickets).toBe(0);
    await store.tickets.putTicket('a-3', { sessionToken: 'a', expiresAt: 1_000 });
    await store.tickets.revokeTickets('a');
    expect(await store.tickets.consumeTicket('a-3')).toBeNull();
  });
});
