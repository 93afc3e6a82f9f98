import { StoreUnavailableError, type Store } from '@webui/core';
import type { TokenRecord } from '@webui/core/adapter';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RedisStoreEvent } from './redis-store-event.js';
import { RedisStore } from './redis-store.js';
import { eventually } from './testing/eventually.js';
import { freePort } from './testing/free-port.js';
import { useRedisServer } from './redis-test-server.js';
import { startRedisServer } from './testing/redis-server.js';

const RECORD: TokenRecord = { accessToken: 'kept-through-faults-0123', tokenSource: 'configured', firstSetupCompleted: true };
const NEXT: TokenRecord = { accessToken: 'written-after-faults-0123', tokenSource: 'configured', firstSetupCompleted: true };
// Reconnecting backs off up to 2 s between tries; a restart is seen within a few of them.
const RECONNECT_MS = 10_000;

const redis = useRedisServer();

async function connected(events: RedisStoreEvent[], prefix = `faults-${randomUUID()}:`): Promise<RedisStore> {
  return redis.open({ prefix, clock: new FakeClock(), onEvent: (event) => events.push(event) });
}

/** Every Store call but readRecord, each with arguments that would succeed against a live Redis. */
function everyCall(store: Store, now: number): Array<[string, () => Promise<unknown>]> {
  const failure = { at: now, windowStart: now - 300_000, threshold: 5, banUntil: now + 600_000, keepUntil: now + 300_000 };
  return [
    ['swapRecord', () => store.record.swapRecord(RECORD, NEXT)],
    ['countFailure', () => store.attempts.countFailure('203.0.113.7', failure)],
    ['recordLogin', () => store.attempts.recordLogin('203.0.113.7', now)],
    ['readAttempts', () => store.attempts.readAttempts('203.0.113.7')],
    ['deleteAttempts', () => store.attempts.deleteAttempts('203.0.113.7')],
    ['listAttempts', () => store.attempts.listAttempts()],
    ['addGlobalFailures', () => store.budget.addGlobalFailures(1, 1, now + 60_000)],
    ['readGlobalFailures', () => store.budget.readGlobalFailures(0)],
    ['clearGlobalFailures', () => store.budget.clearGlobalFailures()],
    ['recordLogin remembered', () => store.attempts.recordLogin('203.0.113.7', now, now + 60_000)],
    ['readClient', async () => store.attempts.readClient('203.0.113.7')],
    ['retireToken', () => store.retiredTokens.retireToken('ab'.repeat(32), now + 60_000)],
    ['isRetiredToken', () => store.retiredTokens.isRetiredToken('ab'.repeat(32))],
    ['putTicket', () => store.tickets.putTicket('ticket', { sessionToken: 'session', expiresAt: now + 60_000 })],
    ['consumeTicket', () => store.tickets.consumeTicket('ticket')],
    ['revokeTickets', () => store.tickets.revokeTickets('session')],
  ];
}

/** How each call settled and how long it took. */
async function settle(calls: Array<[string, () => Promise<unknown>]>): Promise<Array<{ name: string; error: unknown; ms: number }>> {
  return Promise.all(
    calls.map(async ([name, call]) => {
      const started = Date.now();
      try {
        await call();
        return { name, error: null, ms: Date.now() - started };
      } catch (error) {
        return { name, error, ms: Date.now() - started };
      }
    }),
  );
}

describe('RedisStore when Redis fails (fail closed, docs/decisions/0016-shared-store-fails-closed.md)', () => {
  it(
    'Redis killed: every call but readRecord rejects with StoreUnavailableError within a second, readRecord answers the last record; ' +
      'restarted: all works again',
    async () => {
      const events: RedisStoreEvent[] = [];
      const store = await connected(events);
      const clock = new FakeClock();
      await store.record.swapRecord(null, RECORD);
      await store.attempts.countFailure('198.51.100.1', {
        at: clock.now(),
        windowStart: 0,
        threshold: 5,
        banUntil: clock.now() + 600_000,
        keepUntil: clock.now() + 300_000,
      });

      await redis.server().kill();
      // Called at once, while the store may not have noticed yet: in flight or refused, none hangs.
      for (const outcome of await settle(everyCall(store, clock.now()))) {
        expect(outcome.error, outcome.name).toBeInstanceOf(StoreUnavailableError);
        expect(outcome.ms, outcome.name).toBeLessThan(1_000);
      }
      await eventually(
        () => !store.available && events.some((event) => event.kind === 'connection-lost'),
        1_000,
        'available turning false and the loss told',
      );
      for (const outcome of await settle(everyCall(store, clock.now()))) {
        expect(outcome.error, outcome.name).toBeInstanceOf(StoreUnavailableError);
        expect((outcome.error as Error).message, outcome.name).toContain(`Redis at ${redis.server().url} is unavailable`);
        expect(outcome.ms, outcome.name).toBeLessThan(1_000);
      }
      expect(await store.record.readRecord()).toEqual(RECORD);
      expect(events).toContainEqual(expect.objectContaining({ kind: 'connection-lost', address: redis.server().url }));

      await redis.server().restart();
      await eventually(() => store.available, RECONNECT_MS, 'the store reconnecting');
      expect(events).toContainEqual({ kind: 'connection-restored', address: redis.server().url });
      // The append-only file kept what was written before the kill.
      expect((await store.attempts.readAttempts('198.51.100.1'))?.failures.length).toBe(1);
      for (const outcome of await settle(everyCall(store, clock.now()))) expect(outcome.error, outcome.name).toBeNull();
      expect(await store.record.readRecord()).toEqual(NEXT);
      expect(events.filter((event) => event.kind === 'record-restored')).toEqual([]);
    },
  );

  it('Redis restarted empty: the last known record is written back (record-restored) and another instance reads it', async () => {
    const events: RedisStoreEvent[] = [];
    const prefix = `faults-${randomUUID()}:`;
    const store = await connected(events, prefix);
    await store.record.swapRecord(null, RECORD);

    await redis.server().kill();
    for (const entry of readdirSync(redis.server().dir)) rmSync(join(redis.server().dir, entry), { recursive: true, force: true });
    await redis.server().restart();

    await eventually(() => events.some((event) => event.kind === 'record-restored'), RECONNECT_MS, 'record-restored');
    expect(events).toContainEqual({ kind: 'record-restored', address: redis.server().url });
    const other = await connected([], prefix);
    expect(await other.record.readRecord()).toEqual(RECORD);
    expect(await other.record.swapRecord(RECORD, NEXT)).toEqual({ swapped: true });
    await eventually(
      async () => (await store.record.readRecord())?.accessToken === NEXT.accessToken,
      1_000,
      'the change after the restore reaching the first store',
    );
  });

  it('Redis emptied under a running store (FLUSHALL): the next swap writes the record back first, then applies the change', async () => {
    const events: RedisStoreEvent[] = [];
    const store = await connected(events);
    await store.record.swapRecord(null, RECORD);
    await redis.raw().flushall();
    expect(await store.record.swapRecord(RECORD, NEXT)).toEqual({ swapped: true });
    expect(await store.record.readRecord()).toEqual(NEXT);
    expect(events).toContainEqual({ kind: 'record-restored', address: redis.server().url });
  });

  it('connect to a closed port rejects within the timeout, naming the address without the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const connecting = RedisStore.connect({
      url: `redis://:s3cret-pass@127.0.0.1:${port}/0`,
      clock: new FakeClock(),
      connectTimeoutMs: 500,
    });
    const error: unknown = await connecting.catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toMatch(new RegExp(`^cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0: connect ECONNREFUSED`));
    expect(message).not.toContain('s3cret-pass');
    expect(message).not.toContain('\n');
  });

  it('a cluster none of whose nodes answers: rejects within the timeout, naming the nodes without the password', async () => {
    const [first, second] = [await freePort(), await freePort()];
    const started = Date.now();
    const error: unknown = await RedisStore.connect({
      url: `redis-cluster://:s3cret-pass@127.0.0.1:${first},127.0.0.1:${second}`,
      clock: new FakeClock(),
      connectTimeoutMs: 500,
    }).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    const message = (error as Error).message;
    expect(message.startsWith(`cannot reach Redis at redis-cluster://:***@127.0.0.1:${first},127.0.0.1:${second}: `)).toBe(true);
    expect(message).not.toContain('s3cret-pass');
    expect(message).not.toContain('\n');
  });

  it('a password-protected Redis: the right password connects, a wrong one is refused without being shown', async () => {
    const locked = await startRedisServer({ password: 'right-pass' });
    try {
      const store = await redis.open({ url: locked.url, clock: new FakeClock() });
      expect(store.address).toBe(`redis://:***@127.0.0.1:${locked.port}/0`);
      expect(await store.record.swapRecord(null, RECORD)).toEqual({ swapped: true });
      const wrong = await RedisStore.connect({
        url: `redis://:wrong-pass@127.0.0.1:${locked.port}/0`,
        clock: new FakeClock(),
        connectTimeoutMs: 1_000,
      }).catch((caught: unknown) => caught);
      expect(wrong).toBeInstanceOf(StoreUnavailableError);
      expect((wrong as Error).message).toMatch(/^cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0: /);
      expect((wrong as Error).message).not.toContain('wrong-pass');
    } finally {
      await locked.stop();
    }
  });
});
