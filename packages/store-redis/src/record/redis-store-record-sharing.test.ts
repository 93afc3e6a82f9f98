import type { RecordChangeOrigin, TokenRecord } from '@webui/core/adapter';
import { FakeClock } from '@webui/core/testing';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RedisStoreEvent } from '../redis-store-event.js';
import { RedisStore } from '../redis-store.js';
import { eventually } from '../testing/eventually.js';
import { useRedisServer } from '../redis-test-server.js';

const FIRST: TokenRecord = { accessToken: 'first-token-0123456789', tokenSource: 'configured', firstSetupCompleted: true };
const SECOND: TokenRecord = { accessToken: 'second-token-0123456789', firstSetupCompleted: true, secretKeyFingerprint: 'ab'.repeat(32) };
const THIRD: TokenRecord = { accessToken: 'third-token-0123456789', firstSetupCompleted: false };

const redis = useRedisServer();

/** `count` stores on one fresh prefix, as `count` server instances would be. */
async function instances(count: number, events: RedisStoreEvent[] = []): Promise<{ prefix: string; stores: RedisStore[] }> {
  const prefix = `sharing-${randomUUID()}:`;
  const stores = await Promise.all(
    Array.from({ length: count }, () => redis.open({ prefix, clock: new FakeClock(), onEvent: (event) => events.push(event) })),
  );
  return { prefix, stores };
}

function heard(store: RedisStore): Array<[string | undefined, RecordChangeOrigin]> {
  const changes: Array<[string | undefined, RecordChangeOrigin]> = [];
  store.record.onRecordChanged((record, _previous, origin) => changes.push([record?.accessToken, origin]));
  return changes;
}

describe('RedisStore record sharing', () => {
  it(
    "a swap through one store reaches another's readRecord and listener within a second; the writer hears " + "'this_process' once",
    async () => {
      const { stores } = await instances(2);
      const [writer, reader] = stores as [RedisStore, RedisStore];
      const writerHeard = heard(writer);
      const readerHeard = heard(reader);
      expect(await writer.record.swapRecord(null, FIRST)).toEqual({ swapped: true });
      expect(writerHeard).toEqual([['first-token-0123456789', 'this_process']]);
      await eventually(
        async () => (await reader.record.readRecord())?.accessToken === FIRST.accessToken,
        1_000,
        'the record at the other store',
      );
      expect(await reader.record.readRecord()).toEqual(FIRST);
      expect(readerHeard).toEqual([['first-token-0123456789', 'another_instance']]);
      // The writer's own announcement comes back to it too: it must not be heard a second time.
      await reader.record.swapRecord(FIRST, SECOND);
      await eventually(
        async () => (await writer.record.readRecord())?.accessToken === SECOND.accessToken,
        1_000,
        'the second record at the writer',
      );
      expect(writerHeard).toEqual([
        ['first-token-0123456789', 'this_process'],
        ['second-token-0123456789', 'another_instance'],
      ]);
      expect(readerHeard).toEqual([
        ['first-token-0123456789', 'another_instance'],
        ['second-token-0123456789', 'this_process'],
      ]);
    },
  );

  it('the last known record never moves backwards: an announcement of an older revision is ignored', async () => {
    const { prefix, stores } = await instances(2);
    const [writer, reader] = stores as [RedisStore, RedisStore];
    await writer.record.swapRecord(null, FIRST);
    await writer.record.swapRecord(FIRST, SECOND);
    await eventually(
      async () => (await reader.record.readRecord())?.accessToken === SECOND.accessToken,
      1_000,
      'the second record at the reader',
    );
    const readerHeard = heard(reader);
    // Revision 1 again, from an instance that does not exist: delivered in order before the next real change.
    await redis.raw().publish(`${prefix}record-changed`, `1\n${randomUUID()}\n${JSON.stringify(FIRST)}`);
    await writer.record.swapRecord(SECOND, THIRD);
    await eventually(
      async () => (await reader.record.readRecord())?.accessToken === THIRD.accessToken,
      1_000,
      'the third record at the reader',
    );
    expect(readerHeard).toEqual([['third-token-0123456789', 'another_instance']]);
  });

  it('a lost swap tells the record that won and brings the last known record up to it at once', async () => {
    const { stores } = await instances(2);
    const [first, second] = stores as [RedisStore, RedisStore];
    await first.record.swapRecord(null, FIRST);
    await eventually(async () => (await second.record.readRecord()) !== null, 5_000, 'the record at the second store');
    await second.record.swapRecord(FIRST, SECOND);
    // No waiting for the announcement: the lost swap's answer alone updates the first store.
    expect(await first.record.swapRecord(FIRST, THIRD)).toEqual({ swapped: false, current: SECOND });
    expect(await first.record.readRecord()).toEqual(SECOND);
  });

  it('an empty key list and no key list are the same record to the compare-and-set', async () => {
    const { stores } = await instances(1);
    const store = stores[0] as RedisStore;
    await store.record.swapRecord(null, FIRST);
    expect(await store.record.swapRecord({ ...FIRST, apiKeys: [] }, { ...SECOND, apiKeys: [] })).toEqual({ swapped: true });
    expect(await store.record.readRecord()).toEqual({ ...SECOND, apiKeys: [] });
    expect(await store.record.swapRecord(SECOND, THIRD)).toEqual({ swapped: true });
  });

  it('a listener that throws is reported as listener-failed; a record that is not one is refused and the last good one stays', async () => {
    const events: RedisStoreEvent[] = [];
    const { prefix, stores } = await instances(2, events);
    const [writer, reader] = stores as [RedisStore, RedisStore];
    reader.record.onRecordChanged(() => {
      throw new Error('listener broke');
    });
    await writer.record.swapRecord(null, FIRST);
    await eventually(() => events.some((event) => event.kind === 'listener-failed'), 5_000, 'listener-failed');
    expect(events).toContainEqual({ kind: 'listener-failed', reason: 'listener broke' });
    await redis.raw().publish(`${prefix}record-changed`, `99\n${randomUUID()}\n{"accessToken":42}`);
    await eventually(() => events.some((event) => event.kind === 'record-refused'), 5_000, 'record-refused');
    expect(await reader.record.readRecord()).toEqual(FIRST);
  });

  it('connect refuses a record in Redis that is not one, naming the key', async () => {
    const prefix = `sharing-${randomUUID()}:`;
    await redis.raw().hset(`${prefix}record`, 'json', 'not json', 'revision', '1');
    await expect(RedisStore.connect({ url: redis.server().url, prefix, clock: new FakeClock() })).rejects.toThrow(
      `${prefix}record in Redis at ${redis.server().url}: the record is not valid JSON`,
    );
  });
});
