import { describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_STORE_LIMITS, MemoryStore } from './memory-store.js';
import type { AttemptRecord, TokenRecord } from './ports/store.js';
import { FakeClock } from './testing/fake-clock.js';
import { storeConformanceCases } from './testing/store-conformance.js';

describe('MemoryStore passes the shared Store conformance suite', () => {
  for (const testCase of storeConformanceCases(async () => {
    const clock = new FakeClock();
    return { store: new MemoryStore(clock), clock };
  })) {
    it(testCase.name, testCase.run);
  }
});

describe('MemoryStore', () => {
  const counting = (at: number): AttemptRecord => ({ failures: [{ at }] });

  it('has the default limits of DESIGN D14', () => {
    expect(DEFAULT_MEMORY_STORE_LIMITS).toEqual({ maxAttemptKeys: 100_000, maxTickets: 10_000, maxTicketsPerSession: 256, maxRecentSuccesses: 10_000, maxRetiredTokens: 1_000 });
  });

  it('starts from a given record, copied', async () => {
    const record: TokenRecord = { accessToken: 'Initial-Token!', tokenSource: 'configured', firstSetupCompleted: true };
    const store = new MemoryStore(new FakeClock(), { record });
    record.accessToken = 'mutated';
    expect(await store.readRecord()).toEqual({ accessToken: 'Initial-Token!', tokenSource: 'configured', firstSetupCompleted: true });
    expect(await new MemoryStore(new FakeClock(), { record: null }).readRecord()).toBeNull();
  });

  it('sweep drops expired tickets and attempts, and keeps live ones', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock);
    await store.putTicket('old', { sessionToken: 's', expiresAt: 1_000 });
    await store.putTicket('new', { sessionToken: 's', expiresAt: 5_000 });
    await store.writeAttempts('a', counting(0), 1_000);
    await store.writeAttempts('b', counting(0), 5_000);
    clock.set(1_000);
    store.sweep();
    expect(store.size).toEqual({ attempts: 1, tickets: 1 });
    expect(await store.consumeTicket('new')).toEqual({ sessionToken: 's', expiresAt: 5_000 });
    expect(await store.readAttempts('b')).toEqual(counting(0));
  });

  it('rewriting a key moves it to the end: the least recently written record is evicted first', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 3 } });
    await store.writeAttempts('a', counting(0), 10_000);
    await store.writeAttempts('b', counting(0), 10_000);
    await store.writeAttempts('c', counting(0), 10_000);
    await store.writeAttempts('a', counting(1), 10_000);
    await store.writeAttempts('d', counting(0), 10_000);
    expect(store.size.attempts).toBe(3);
    expect(await store.readAttempts('b')).toBeNull();
    expect(await store.readAttempts('a')).toEqual(counting(1));
  });

  it('when full, a record past its expiry goes even if it holds a ban', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 2 } });
    await store.writeAttempts('expired', { failures: [], bannedUntil: 600_000 }, 1_000);
    await store.writeAttempts('ban-running', { failures: [], bannedUntil: 600_000 }, 600_000);
    clock.set(2_000);
    await store.writeAttempts('new', counting(2_000), 302_000);
    expect(store.size.attempts).toBe(2);
    expect(await store.readAttempts('ban-running')).not.toBeNull();
    expect(await store.readAttempts('new')).not.toBeNull();
  });

  it('when full, running bans are kept and the oldest record without one goes', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 3 } });
    const ban: AttemptRecord = { failures: [], bannedUntil: 600_000 };
    await store.writeAttempts('banned-1', ban, 600_000);
    await store.writeAttempts('counting', counting(0), 300_000);
    await store.writeAttempts('banned-2', ban, 600_000);
    await store.writeAttempts('new', counting(0), 300_000);
    expect(await store.readAttempts('banned-1')).toEqual(ban);
    expect(await store.readAttempts('banned-2')).toEqual(ban);
    expect(await store.readAttempts('counting')).toBeNull();
  });

  it('when every record is a running ban, the oldest ban goes: the cap always holds', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 2 } });
    const ban: AttemptRecord = { failures: [], bannedUntil: 600_000 };
    await store.writeAttempts('banned-1', ban, 600_000);
    await store.writeAttempts('banned-2', ban, 600_000);
    await store.writeAttempts('banned-3', ban, 600_000);
    expect(store.size.attempts).toBe(2);
    expect(await store.readAttempts('banned-1')).toBeNull();
  });

  it('a record whose ban is over counts as evictable', async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore(clock, { limits: { maxAttemptKeys: 2 } });
    await store.writeAttempts('ban-over', { failures: [{ at: 0 }], bannedUntil: 1_000 }, 300_000);
    await store.writeAttempts('ban-running', { failures: [], bannedUntil: 600_000 }, 600_000);
    clock.set(2_000);
    await store.writeAttempts('new', counting(2_000), 302_000);
    expect(await store.readAttempts('ban-over')).toBeNull();
    expect(await store.readAttempts('ban-running')).not.toBeNull();
  });

  it('tickets are copied in', async () => {
    const store = new MemoryStore(new FakeClock(0));
    const grant = { sessionToken: 's', expiresAt: 1_000 };
    await store.putTicket('t', grant);
    grant.expiresAt = 99_999;
    expect(await store.consumeTicket('t')).toEqual({ sessionToken: 's', expiresAt: 1_000 });
  });

  it('per-session caps are per session: one session cannot evict another', async () => {
    const store = new MemoryStore(new FakeClock(0), { limits: { maxTicketsPerSession: 2 } });
    await store.putTicket('a-1', { sessionToken: 'a', expiresAt: 1_000 });
    await store.putTicket('b-1', { sessionToken: 'b', expiresAt: 1_000 });
    for (let i = 2; i < 10; i++) await store.putTicket(`a-${i}`, { sessionToken: 'a', expiresAt: 1_000 });
    expect(store.size.tickets).toBe(3);
    expect(await store.consumeTicket('b-1')).not.toBeNull();
    expect(await store.consumeTicket('a-9')).not.toBeNull();
    expect(await store.consumeTicket('a-1')).toBeNull();
  });

  it('revoking a session after its tickets were consumed or evicted is harmless', async () => {
    const store = new MemoryStore(new FakeClock(0), { limits: { maxTicketsPerSession: 1 } });
    await store.putTicket('a-1', { sessionToken: 'a', expiresAt: 1_000 });
    await store.putTicket('a-2', { sessionToken: 'a', expiresAt: 1_000 });
    await store.consumeTicket('a-2');
    await store.revokeTickets('a');
    expect(store.size.tickets).toBe(0);
    await store.putTicket('a-3', { sessionToken: 'a', expiresAt: 1_000 });
    await store.revokeTickets('a');
    expect(await store.consumeTicket('a-3')).toBeNull();
  });
});
