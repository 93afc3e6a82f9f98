import type { AttemptEntry, AttemptRecord, Store, TicketGrant, TokenRecord } from '../ports/store.js';

/** What one case needs: a fresh, empty store and the clock it reads. */
export interface StoreConformanceHarness {
  store: Store;
  clock: { now(): number; advance(ms: number): void };
  cleanup?(): Promise<void>;
}

export interface StoreConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/**
 * The behaviour every Store adapter must show, framework-free so any test runner can run it:
 * `for (const c of storeConformanceCases(make)) it(c.name, c.run)`.
 */
export function storeConformanceCases(makeHarness: () => Promise<StoreConformanceHarness>): StoreConformanceCase[] {
  const withHarness =
    (body: (harness: StoreConformanceHarness) => Promise<void>) =>
    async (): Promise<void> => {
      const harness = await makeHarness();
      try {
        await body(harness);
      } finally {
        await harness.cleanup?.();
      }
    };

  return [
    {
      name: 'readRecord returns null when nothing was written',
      run: withHarness(async ({ store }) => {
        expectEqual(await store.readRecord(), null, 'readRecord on an empty store');
      }),
    },
    {
      name: 'writeRecord then readRecord round-trips every field when the optional ones are present',
      run: withHarness(async ({ store }) => {
        for (const record of [FULL_RECORD, { ...FULL_RECORD, tokenSource: 'temporary' as const, firstSetupCompleted: false }]) {
          await store.writeRecord(record);
          expectEqual(await store.readRecord(), record, 'record read back');
        }
      }),
    },
    {
      name: 'writeRecord then readRecord leaves the optional fields absent when they were absent',
      run: withHarness(async ({ store }) => {
        await store.writeRecord(MINIMAL_RECORD);
        const read = await store.readRecord();
        expectEqual(read, MINIMAL_RECORD, 'record read back');
        expectEqual(read?.tokenSource, undefined, 'tokenSource of a record written without one');
        expectEqual(read?.secretKeyFingerprint, undefined, 'secretKeyFingerprint of a record written without one');
      }),
    },
    {
      name: 'writeRecord replaces the previous record, optional fields included',
      run: withHarness(async ({ store }) => {
        await store.writeRecord(FULL_RECORD);
        await store.writeRecord(MINIMAL_RECORD);
        expectEqual(await store.readRecord(), MINIMAL_RECORD, 'record after a second write');
      }),
    },
    {
      name: 'onRecordChanged tells every listener the new record and the one it replaced by the time the write resolves',
      run: withHarness(async ({ store }) => {
        const seen: Array<[unknown, unknown]> = [];
        const unsubscribe = store.onRecordChanged((record, previous) => seen.push([record, previous]));
        await store.writeRecord(MINIMAL_RECORD);
        expectEqual(seen, [[MINIMAL_RECORD, null]], 'changes after the first write');
        await store.writeRecord(FULL_RECORD);
        expectEqual(seen, [[MINIMAL_RECORD, null], [FULL_RECORD, MINIMAL_RECORD]], 'changes after the second write');
        await store.writeRecord(FULL_RECORD);
        expectEqual(seen.length, 2, 'changes heard after writing the same record again');
        unsubscribe();
        await store.writeRecord(MINIMAL_RECORD);
        expectEqual(seen.length, 2, 'changes heard after unsubscribing');
      }),
    },
    {
      name: 'a record-change listener that throws stops neither the write nor the other listeners',
      run: withHarness(async ({ store }) => {
        let heard = 0;
        store.onRecordChanged(() => {
          throw new Error('listener failure');
        });
        store.onRecordChanged(() => heard++);
        await store.writeRecord(FULL_RECORD);
        expectEqual(heard, 1, 'calls of the listener after the failing one');
        expectEqual(await store.readRecord(), FULL_RECORD, 'record after a failing listener');
      }),
    },
    {
      name: 'records are copied in and out: mutating them does not change the store',
      run: withHarness(async ({ store }) => {
        const written: TokenRecord = { ...FULL_RECORD, apiKeys: FULL_RECORD.apiKeys?.map((key) => ({ ...key })) };
        await store.writeRecord(written);
        written.accessToken = 'mutated-after-write';
        if (written.apiKeys?.[0]) written.apiKeys[0].lastUsedAt = 1;
        written.apiKeys?.pop();
        const read = await store.readRecord();
        if (!read) throw new Error('readRecord returned null after a write');
        read.accessToken = 'mutated-after-read';
        read.firstSetupCompleted = !read.firstSetupCompleted;
        delete read.secretKeyFingerprint;
        if (read.apiKeys?.[0]) read.apiKeys[0].scope = 'read';
        read.apiKeys?.pop();
        expectEqual(await store.readRecord(), FULL_RECORD, 'record after mutating the written and the returned objects');
      }),
    },
    {
      name: 'attempts round-trip and are copied out',
      run: withHarness(async ({ store, clock }) => {
        expectEqual(await store.readAttempts('203.0.113.7'), null, 'attempts of an unknown key');
        const banned: AttemptRecord = { failures: [{ at: clock.now() - 2, cookie: 'wrong-cookie' }, { at: clock.now() - 1 }], bannedUntil: clock.now() + 600_000 };
        const counting: AttemptRecord = { failures: [{ at: clock.now() }] };
        await store.writeAttempts('203.0.113.7', banned, clock.now() + 600_000);
        await store.writeAttempts('2001:db8::/64', counting, clock.now() + 300_000);
        expectEqual(await store.readAttempts('203.0.113.7'), banned, 'attempts with a ban');
        expectEqual(await store.readAttempts('2001:db8::/64'), counting, 'attempts without a ban');
        const read = await store.readAttempts('2001:db8::/64');
        read?.failures.push({ at: 0 });
        expectEqual(await store.readAttempts('2001:db8::/64'), counting, 'attempts after mutating the returned object');
      }),
    },
    {
      name: 'attempts expire at expiresAt',
      run: withHarness(async ({ store, clock }) => {
        const record: AttemptRecord = { failures: [{ at: clock.now() }] };
        await store.writeAttempts('198.51.100.1', record, clock.now() + 1_000);
        clock.advance(999);
        expectEqual(await store.readAttempts('198.51.100.1'), record, 'attempts 1 ms before expiresAt');
        clock.advance(1);
        expectEqual(await store.readAttempts('198.51.100.1'), null, 'attempts at expiresAt');
      }),
    },
    {
      name: 'deleteAttempts removes only that key, and deleting an unknown key is fine',
      run: withHarness(async ({ store, clock }) => {
        const record: AttemptRecord = { failures: [{ at: clock.now() }] };
        await store.writeAttempts('a', record, clock.now() + 1_000);
        await store.writeAttempts('b', record, clock.now() + 1_000);
        await store.deleteAttempts('a');
        await store.deleteAttempts('never-written');
        expectEqual(await store.readAttempts('a'), null, 'deleted attempts');
        expectEqual(await store.readAttempts('b'), record, 'attempts of another key');
      }),
    },
    {
      name: 'listAttempts lists every unexpired record, copied out',
      run: withHarness(async ({ store, clock }) => {
        expectEqual(await store.listAttempts(), [], 'attempts listed by an empty store');
        const banned: AttemptRecord = { failures: [], bannedUntil: clock.now() + 600_000, lastFailureAt: clock.now() };
        const counting: AttemptRecord = { failures: [{ at: clock.now(), cookie: 'wrong-cookie' }], lastFailureAt: clock.now() };
        await store.writeAttempts('203.0.113.7', banned, clock.now() + 600_000);
        await store.writeAttempts('2001:db8::/64', counting, clock.now() + 1_000);
        await store.writeAttempts('deleted', counting, clock.now() + 600_000);
        await store.deleteAttempts('deleted');
        expectEqual(byKey(await store.listAttempts()), [{ key: '2001:db8::/64', record: counting }, { key: '203.0.113.7', record: banned }], 'attempts listed');

        const listed = await store.listAttempts();
        for (const entry of listed) {
          entry.record.failures.push({ at: 0 });
          entry.record.bannedUntil = 0;
        }
        expectEqual(byKey(await store.listAttempts()), [{ key: '2001:db8::/64', record: counting }, { key: '203.0.113.7', record: banned }], 'attempts listed after mutating a listing');

        clock.advance(999);
        expectEqual((await store.listAttempts()).length, 2, 'attempts listed 1 ms before one expires');
        clock.advance(1);
        expectEqual(await store.listAttempts(), [{ key: '203.0.113.7', record: banned }], 'attempts listed once one has expired');
      }),
    },
    {
      name: 'addGlobalFailures sums per bucket, negative counts subtract, readGlobalFailures returns the buckets from fromBucket on, oldest first',
      run: withHarness(async ({ store, clock }) => {
        const expiresAt = clock.now() + 3_600_000;
        expectEqual(await store.readGlobalFailures(0), [], 'buckets of an empty store');
        // Written out of order: the answer is ordered by bucket, not by write.
        await store.addGlobalFailures(1002, 1, expiresAt);
        await store.addGlobalFailures(1000, 1, expiresAt);
        await store.addGlobalFailures(1001, 4, expiresAt);
        await store.addGlobalFailures(1000, 2, expiresAt);
        await store.addGlobalFailures(1001, -1, expiresAt);
        expectEqual(
          await store.readGlobalFailures(0),
          [
            { bucket: 1000, count: 3 },
            { bucket: 1001, count: 3 },
            { bucket: 1002, count: 1 },
          ],
          'every bucket',
        );
        expectEqual(
          await store.readGlobalFailures(1001),
          [
            { bucket: 1001, count: 3 },
            { bucket: 1002, count: 1 },
          ],
          'buckets from 1001 on',
        );
        expectEqual(await store.readGlobalFailures(1003), [], 'buckets after the newest');
      }),
    },
    {
      name: 'global failure buckets expire at expiresAt, each on its own',
      run: withHarness(async ({ store, clock }) => {
        await store.addGlobalFailures(7, 5, clock.now() + 1_000);
        await store.addGlobalFailures(8, 2, clock.now() + 2_000);
        clock.advance(999);
        expectEqual(
          await store.readGlobalFailures(0),
          [
            { bucket: 7, count: 5 },
            { bucket: 8, count: 2 },
          ],
          'buckets 1 ms before the first expires',
        );
        clock.advance(1);
        expectEqual(await store.readGlobalFailures(0), [{ bucket: 8, count: 2 }], 'buckets once the first has expired');
        // A count added to an expired bucket starts from nothing, not from what had expired.
        await store.addGlobalFailures(7, 1, clock.now() + 1_000);
        expectEqual(
          await store.readGlobalFailures(0),
          [
            { bucket: 7, count: 1 },
            { bucket: 8, count: 2 },
          ],
          'buckets after adding to an expired one',
        );
        clock.advance(1_000);
        expectEqual(await store.readGlobalFailures(0), [], 'buckets once all have expired');
      }),
    },
    {
      name: 'rememberSuccess is remembered per key until `until`, and remembering again moves `until`',
      run: withHarness(async ({ store, clock }) => {
        expectEqual(await store.hasRecentSuccess('203.0.113.7'), false, 'a key never remembered');
        await store.rememberSuccess('203.0.113.7', clock.now() + 1_000);
        expectEqual(await store.hasRecentSuccess('203.0.113.7'), true, 'a remembered key');
        expectEqual(await store.hasRecentSuccess('203.0.113.8'), false, 'another key');
        clock.advance(999);
        expectEqual(await store.hasRecentSuccess('203.0.113.7'), true, 'a remembered key 1 ms before until');
        clock.advance(1);
        expectEqual(await store.hasRecentSuccess('203.0.113.7'), false, 'a remembered key at until');
        await store.rememberSuccess('2001:db8::/64', clock.now() + 1_000);
        await store.rememberSuccess('2001:db8::/64', clock.now() + 5_000);
        clock.advance(4_999);
        expectEqual(await store.hasRecentSuccess('2001:db8::/64'), true, 'a key remembered again with a later until, 1 ms before it');
        clock.advance(1);
        expectEqual(await store.hasRecentSuccess('2001:db8::/64'), false, 'a key remembered again, at its later until');
      }),
    },
    {
      name: 'retireToken is remembered per fingerprint until `until`',
      run: withHarness(async ({ store, clock }) => {
        const fingerprint = 'ab'.repeat(32);
        expectEqual(await store.isRetiredToken(fingerprint), false, 'a fingerprint never retired');
        await store.retireToken(fingerprint, clock.now() + 1_000);
        await store.retireToken('cd'.repeat(32), clock.now() + 5_000);
        expectEqual(await store.isRetiredToken(fingerprint), true, 'a retired fingerprint');
        expectEqual(await store.isRetiredToken('ef'.repeat(32)), false, 'another fingerprint');
        clock.advance(999);
        expectEqual(await store.isRetiredToken(fingerprint), true, 'a retired fingerprint 1 ms before until');
        clock.advance(1);
        expectEqual(await store.isRetiredToken(fingerprint), false, 'a retired fingerprint at until');
        expectEqual(await store.isRetiredToken('cd'.repeat(32)), true, 'a fingerprint retired for longer');
      }),
    },
    {
      name: 'consumeTicket returns the grant once, then null',
      run: withHarness(async ({ store, clock }) => {
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await store.putTicket('ticket-1', grant);
        expectEqual(await store.consumeTicket('never-issued'), null, 'consuming an unknown ticket');
        expectEqual(await store.consumeTicket('ticket-1'), grant, 'first consume');
        expectEqual(await store.consumeTicket('ticket-1'), null, 'second consume');
      }),
    },
    {
      name: '20 concurrent consumeTicket calls of one ticket yield exactly one grant',
      run: withHarness(async ({ store, clock }) => {
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await store.putTicket('ticket-race', grant);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeTicket('ticket-race')));
        const grants = results.filter((result) => result !== null);
        expectEqual(grants.length, 1, 'number of concurrent consumes that got the grant');
        expectEqual(grants[0], grant, 'the grant won by the race');
      }),
    },
    {
      name: "revokeTickets drops only that session's tickets",
      run: withHarness(async ({ store, clock }) => {
        const expiresAt = clock.now() + 60_000;
        await store.putTicket('a-1', { sessionToken: 'session-a', expiresAt });
        await store.putTicket('a-2', { sessionToken: 'session-a', expiresAt });
        await store.putTicket('b-1', { sessionToken: 'session-b', expiresAt });
        await store.revokeTickets('session-a');
        await store.revokeTickets('session-without-tickets');
        expectEqual(await store.consumeTicket('a-1'), null, 'revoked ticket a-1');
        expectEqual(await store.consumeTicket('a-2'), null, 'revoked ticket a-2');
        expectEqual(await store.consumeTicket('b-1'), { sessionToken: 'session-b', expiresAt }, "another session's ticket");
      }),
    },
    {
      name: '20 concurrent writeRecord calls leave one complete record among those written',
      run: withHarness(async ({ store }) => {
        const records: TokenRecord[] = Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? { accessToken: `concurrent-token-${i}`, tokenSource: 'configured', firstSetupCompleted: true, secretKeyFingerprint: `${i}`.repeat(8) }
            : { accessToken: `concurrent-token-${i}`, firstSetupCompleted: false },
        );
        await Promise.all(records.map((record) => store.writeRecord(record)));
        const read = await store.readRecord();
        if (!records.some((record) => deepEqual(read, record))) {
          throw new Error(`record after 20 concurrent writes is none of those written: got ${show(read)}`);
        }
      }),
    },
  ];
}

const FULL_RECORD: TokenRecord = {
  // Characters a cookie or a file format could mangle: ; , " \ =
  accessToken: 'Tok;en,"quoted"\\back=slash-0123456789',
  tokenSource: 'configured',
  firstSetupCompleted: true,
  secretKeyFingerprint: 'ab'.repeat(32),
  apiKeys: [
    { name: 'deploy-script', scope: 'admin', keyHash: 'cd'.repeat(32), createdAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678), expiresAt: Date.UTC(2026, 3, 2), lastUsedAt: null },
    { name: 'monitor', scope: 'read', keyHash: 'ef'.repeat(32), createdAt: Date.UTC(2026, 0, 1), expiresAt: null, lastUsedAt: Date.UTC(2026, 0, 3) },
  ],
};

const MINIMAL_RECORD: TokenRecord = { accessToken: 'minimal-token-0123456789', firstSetupCompleted: false };

/** Listings come in no particular order; compare them by key. */
function byKey(entries: AttemptEntry[]): AttemptEntry[] {
  return [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!deepEqual(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Structural equality of JSON-like values; a key holding undefined counts as absent, as it would on disk. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aEntries = definedEntries(a);
  const bEntries = definedEntries(b);
  if (aEntries.length !== bEntries.length) return false;
  const bMap = new Map(bEntries);
  return aEntries.every(([key, value]) => bMap.has(key) && deepEqual(value, bMap.get(key)));
}

function definedEntries(value: object): Array<[string, unknown]> {
  return Object.entries(value).filter(([, entry]) => entry !== undefined);
}

function show(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
