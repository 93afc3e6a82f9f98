import type { AttemptEntry, FailureTally, FailureToCount, Store, TicketGrant, TokenRecord } from '../ports/store.js';
import { overwriteRecord } from './overwrite-record.js';

/** What one case needs: a fresh, empty store and the clock it reads. */
export interface StoreConformanceHarness {
  store: Store;
  clock: { now(): number; advance(ms: number): void };
  /**
   * `count` independent clients of the same backing state as `store` (other connections, as other
   * processes would have); a store that lives in one process answers with `store` itself.
   */
  clients(count: number): Promise<Store[]>;
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
          await overwriteRecord(store, record);
          expectEqual(await store.readRecord(), record, 'record read back');
        }
      }),
    },
    {
      name: 'writeRecord then readRecord leaves the optional fields absent when they were absent',
      run: withHarness(async ({ store }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const read = await store.readRecord();
        expectEqual(read, MINIMAL_RECORD, 'record read back');
        expectEqual(read?.tokenSource, undefined, 'tokenSource of a record written without one');
        expectEqual(read?.secretKeyFingerprint, undefined, 'secretKeyFingerprint of a record written without one');
      }),
    },
    {
      name: 'writeRecord replaces the previous record, optional fields included',
      run: withHarness(async ({ store }) => {
        await overwriteRecord(store, FULL_RECORD);
        await overwriteRecord(store, MINIMAL_RECORD);
        expectEqual(await store.readRecord(), MINIMAL_RECORD, 'record after a second write');
      }),
    },
    {
      name: 'onRecordChanged tells every listener the new record and the one it replaced by the time the write resolves',
      run: withHarness(async ({ store }) => {
        const seen: Array<[unknown, unknown]> = [];
        const unsubscribe = store.onRecordChanged((record, previous) => seen.push([record, previous]));
        await overwriteRecord(store, MINIMAL_RECORD);
        expectEqual(seen, [[MINIMAL_RECORD, null]], 'changes after the first write');
        await overwriteRecord(store, FULL_RECORD);
        expectEqual(seen, [[MINIMAL_RECORD, null], [FULL_RECORD, MINIMAL_RECORD]], 'changes after the second write');
        await overwriteRecord(store, FULL_RECORD);
        expectEqual(seen.length, 2, 'changes heard after writing the same record again');
        unsubscribe();
        await overwriteRecord(store, MINIMAL_RECORD);
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
        await overwriteRecord(store, FULL_RECORD);
        expectEqual(heard, 1, 'calls of the listener after the failing one');
        expectEqual(await store.readRecord(), FULL_RECORD, 'record after a failing listener');
      }),
    },
    {
      name: 'records are copied in and out: mutating them does not change the store',
      run: withHarness(async ({ store }) => {
        const written: TokenRecord = { ...FULL_RECORD, apiKeys: FULL_RECORD.apiKeys?.map((key) => ({ ...key })) };
        await overwriteRecord(store, written);
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
      name: 'countFailure counts failures in the window; the one reaching the threshold bans and empties the count; a running ban absorbs more',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        expectEqual(await store.readAttempts('203.0.113.7'), null, 'attempts of an unknown key');
        expectEqual(await store.countFailure('203.0.113.7', failureAt(at, { threshold: 3 })), { kind: 'counted', failures: 1 }, 'first failure');
        expectEqual(await store.countFailure('203.0.113.7', failureAt(at + 1, { threshold: 3, cookie: 'wrong-cookie' })), { kind: 'counted', failures: 2 }, 'second failure');
        expectEqual(await store.readAttempts('203.0.113.7'), { failures: [{ at }, { at: at + 1, cookie: 'wrong-cookie' }], lastFailureAt: at + 1 }, 'attempts after two failures');
        expectEqual(await store.readAttempts('198.51.100.1'), null, 'attempts of another key');
        const third = failureAt(at + 2, { threshold: 3 });
        expectEqual(await store.countFailure('203.0.113.7', third), { kind: 'banned', bannedUntil: third.banUntil }, 'the failure reaching the threshold');
        expectEqual(await store.readAttempts('203.0.113.7'), { failures: [], bannedUntil: third.banUntil, lastFailureAt: at + 2 }, 'attempts once banned');
        expectEqual(await store.countFailure('203.0.113.7', failureAt(at + 3, { threshold: 3 })), { kind: 'already_banned', bannedUntil: third.banUntil }, 'a failure while banned');
        const read = await store.readAttempts('203.0.113.7');
        read?.failures.push({ at: 0 });
        expectEqual(await store.readAttempts('203.0.113.7'), { failures: [], bannedUntil: third.banUntil, lastFailureAt: at + 2 }, 'attempts after mutating the returned object');
      }),
    },
    {
      name: 'countFailure counts a cookie once while it is in the window, and drops failures at or before windowStart',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('k', failureAt(at, { cookie: 'stale' }));
        expectEqual(await store.countFailure('k', failureAt(at + 10, { cookie: 'stale' })), { kind: 'repeated', failures: 1 }, 'the same cookie inside the window');
        expectEqual(await store.countFailure('k', failureAt(at + 20, { cookie: 'other' })), { kind: 'counted', failures: 2 }, 'another cookie');
        // windowStart = at: the failure at `at` has left the window, so its cookie counts again.
        expectEqual(await store.countFailure('k', { ...failureAt(at + 30, { cookie: 'stale' }), windowStart: at }), { kind: 'counted', failures: 2 }, 'the same cookie once its failure left the window');
        expectEqual((await store.readAttempts('k'))?.failures, [{ at: at + 20, cookie: 'other' }, { at: at + 30, cookie: 'stale' }], 'failures kept');
      }),
    },
    {
      name: 'attempts expire at keepUntil, and a ban at banUntil',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('counting', { ...failureAt(at), keepUntil: at + 1_000 });
        await store.countFailure('banned', { ...failureAt(at, { threshold: 1 }), banUntil: at + 2_000 });
        clock.advance(999);
        expectEqual((await store.readAttempts('counting'))?.failures.length, 1, 'failures 1 ms before keepUntil');
        clock.advance(1);
        expectEqual(await store.readAttempts('counting'), null, 'attempts at keepUntil');
        expectEqual((await store.readAttempts('banned'))?.bannedUntil, at + 2_000, 'a ban still running');
        clock.advance(1_000);
        expectEqual(await store.readAttempts('banned'), null, 'attempts at banUntil');
        // A failure after the ban ended starts a new count.
        expectEqual(await store.countFailure('banned', failureAt(clock.now(), { threshold: 1 })).then((tally) => tally.kind), 'banned', 'a failure once the ban is over');
      }),
    },
    {
      name: 'clearFailures forgets the failures, but never a running ban',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('counting', failureAt(at));
        await store.countFailure('banned', { ...failureAt(at, { threshold: 1 }), banUntil: at + 1_000 });
        await store.clearFailures('counting', at);
        await store.clearFailures('banned', at + 999);
        await store.clearFailures('never-counted', at);
        expectEqual(await store.readAttempts('counting'), null, 'cleared failures');
        expectEqual((await store.readAttempts('banned'))?.bannedUntil, at + 1_000, 'a running ban after clearFailures');
      }),
    },
    {
      name: 'deleteAttempts removes only that key, a running ban included, and deleting an unknown key is fine',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('a', failureAt(at, { threshold: 1 }));
        await store.countFailure('b', failureAt(at));
        await store.deleteAttempts('a');
        await store.deleteAttempts('never-written');
        expectEqual(await store.readAttempts('a'), null, 'deleted attempts');
        expectEqual(await store.readAttempts('b'), { failures: [{ at }], lastFailureAt: at }, 'attempts of another key');
      }),
    },
    {
      name: 'listAttempts lists every unexpired record, copied out',
      run: withHarness(async ({ store, clock }) => {
        const at = clock.now();
        expectEqual(await store.listAttempts(), [], 'attempts listed by an empty store');
        await store.countFailure('203.0.113.7', { ...failureAt(at, { threshold: 1 }), banUntil: at + 600_000 });
        await store.countFailure('2001:db8::/64', { ...failureAt(at, { cookie: 'wrong-cookie' }), keepUntil: at + 1_000 });
        await store.countFailure('deleted', failureAt(at));
        await store.deleteAttempts('deleted');
        const banned = { failures: [], bannedUntil: at + 600_000, lastFailureAt: at };
        const counting = { failures: [{ at, cookie: 'wrong-cookie' }], lastFailureAt: at };
        expectEqual(byKey(await store.listAttempts()), [{ key: '2001:db8::/64', record: counting }, { key: '203.0.113.7', record: banned }], 'attempts listed');
        for (const entry of await store.listAttempts()) {
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
      name: 'clearGlobalFailures forgets every bucket at once, and a count added afterwards starts from nothing',
      run: withHarness(async ({ store, clock }) => {
        const expiresAt = clock.now() + 3_600_000;
        await store.clearGlobalFailures();
        expectEqual(await store.readGlobalFailures(0), [], 'buckets after clearing an empty store');
        await store.addGlobalFailures(1000, 7, expiresAt);
        await store.addGlobalFailures(1001, 2, expiresAt);
        await store.countFailure('203.0.113.7', failureAt(clock.now()));
        await store.clearGlobalFailures();
        expectEqual(await store.readGlobalFailures(0), [], 'buckets after the reset');
        expectEqual((await store.readAttempts('203.0.113.7'))?.failures.length, 1, "a client key's failures after the reset");
        await store.addGlobalFailures(1001, 1, expiresAt);
        // A hold given back after the reset: the store keeps what it is told, the reader judges it.
        await store.addGlobalFailures(1002, -1, expiresAt);
        expectEqual(
          await store.readGlobalFailures(0),
          [
            { bucket: 1001, count: 1 },
            { bucket: 1002, count: -1 },
          ],
          'buckets added after the reset',
        );
      }),
    },
    {
      name: 'K clients: the global failures added by every client are one budget, and one client clears it for all',
      run: withHarness(async ({ clock, clients }) => {
        const [first, second] = (await clients(2)) as [Store, Store];
        const expiresAt = clock.now() + 3_600_000;
        await first.addGlobalFailures(500, 3, expiresAt);
        await second.addGlobalFailures(500, 4, expiresAt);
        expectEqual(await first.readGlobalFailures(0), [{ bucket: 500, count: 7 }], 'the budget read by the first client');
        await second.clearGlobalFailures();
        expectEqual(await first.readGlobalFailures(0), [], 'the budget read by the first client after the second cleared it');
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
      name: '20 concurrent swaps from one record: exactly one wins, whole, and every loser is told the winner',
      run: withHarness(async ({ store }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const records: TokenRecord[] = Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? { accessToken: `concurrent-token-${i}`, tokenSource: 'configured', firstSetupCompleted: true, secretKeyFingerprint: `${i}`.repeat(8) }
            : { accessToken: `concurrent-token-${i}`, firstSetupCompleted: false },
        );
        const swaps = await Promise.all(records.map((record) => store.swapRecord(MINIMAL_RECORD, record)));
        const winners = records.filter((_, i) => swaps[i]?.swapped);
        expectEqual(winners.length, 1, 'swaps that won');
        expectEqual(await store.readRecord(), winners[0], 'record after the race');
        for (const swap of swaps) if (!swap.swapped) expectEqual(swap.current, winners[0], 'the current record a losing swap is told');
        expectEqual(await store.swapRecord(MINIMAL_RECORD, FULL_RECORD), { swapped: false, current: winners[0] }, 'a swap from a record that is no longer current');
      }),
    },
    {
      name: 'swapRecord from null writes only into an empty store',
      run: withHarness(async ({ store }) => {
        expectEqual(await store.swapRecord(null, MINIMAL_RECORD), { swapped: true }, 'a swap from null into an empty store');
        expectEqual(await store.swapRecord(null, FULL_RECORD), { swapped: false, current: MINIMAL_RECORD }, 'a swap from null once a record exists');
        expectEqual(await store.readRecord(), MINIMAL_RECORD, 'record kept');
      }),
    },
    {
      name: 'K clients: two concurrent token updates leave one of the two records, whole, and both clients read it',
      run: withHarness(async ({ store, clients }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const [first, second] = (await clients(2)) as [Store, Store];
        const updates: TokenRecord[] = [
          { ...FULL_RECORD, accessToken: 'update-from-first-client-0123' },
          { accessToken: 'update-from-second-client-456', tokenSource: 'temporary', firstSetupCompleted: true },
        ];
        const swaps = await Promise.all([first.swapRecord(MINIMAL_RECORD, updates[0] as TokenRecord), second.swapRecord(MINIMAL_RECORD, updates[1] as TokenRecord)]);
        expectEqual(swaps.filter((swap) => swap.swapped).length, 1, 'updates that won');
        const winner = swaps[0]?.swapped ? updates[0] : updates[1];
        expectEqual(await first.readRecord(), winner, 'record read by the first client');
        expectEqual(await second.readRecord(), winner, 'record read by the second client');
      }),
    },
    {
      name: 'K clients: 50 concurrent failures of one key lose none, and exactly one starts the ban',
      run: withHarness(async ({ clock, clients }) => {
        const stores = await clients(5);
        const at = clock.now();
        const race = (key: string, threshold: number): Promise<FailureTally[]> =>
          Promise.all(Array.from({ length: 50 }, (_, i) => (stores[i % stores.length] as Store).countFailure(key, failureAt(at, { threshold, cookie: `guess-${i}` }))));

        const counted = await race('203.0.113.50', 51);
        expectEqual(
          counted.map((tally) => (tally.kind === 'counted' ? tally.failures : -1)).sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i + 1),
          'counts told to 50 concurrent failures under a threshold of 51',
        );
        expectEqual((await (stores[1] as Store).readAttempts('203.0.113.50'))?.failures.length, 50, 'failures kept');

        const banning = await race('203.0.113.51', 5);
        expectEqual(banning.filter((tally) => tally.kind === 'banned').length, 1, 'failures that started a ban');
        expectEqual(banning.filter((tally) => tally.kind === 'counted').length, 4, 'failures counted before the ban');
        expectEqual(banning.filter((tally) => tally.kind === 'already_banned').length, 45, 'failures absorbed by the ban');
      }),
    },
    {
      name: 'K clients: one ticket consumed by every client at once has exactly one winner',
      run: withHarness(async ({ clock, clients }) => {
        const stores = await clients(5);
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await (stores[0] as Store).putTicket('ticket-shared', grant);
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (stores[i % stores.length] as Store).consumeTicket('ticket-shared')));
        const grants = results.filter((result) => result !== null);
        expectEqual(grants.length, 1, 'consumes that got the grant');
        expectEqual(grants[0], grant, 'the grant won by the race');
      }),
    },
    {
      name: 'K clients: revokeTickets covers tickets put by every client, and a failure counted by one is cleared by another',
      run: withHarness(async ({ clock, clients }) => {
        const [first, second] = (await clients(2)) as [Store, Store];
        const expiresAt = clock.now() + 60_000;
        await first.putTicket('from-first', { sessionToken: 'session-a', expiresAt });
        await second.putTicket('from-second', { sessionToken: 'session-a', expiresAt });
        await first.revokeTickets('session-a');
        expectEqual(await second.consumeTicket('from-first'), null, 'ticket of the first client after the revocation');
        expectEqual(await first.consumeTicket('from-second'), null, 'ticket of the second client after the revocation');
        await first.countFailure('203.0.113.9', failureAt(clock.now()));
        expectEqual((await second.readAttempts('203.0.113.9'))?.failures.length, 1, 'a failure counted by the first client, read by the second');
        await second.clearFailures('203.0.113.9', clock.now());
        expectEqual(await first.readAttempts('203.0.113.9'), null, 'the failure after the second client cleared it');
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

/** A failure at `at` under a five-minute window, threshold 5 and a ten-minute ban, unless `rule` says otherwise. */
function failureAt(at: number, rule: { threshold?: number; cookie?: string } = {}): FailureToCount {
  return { at, ...(rule.cookie === undefined ? {} : { cookie: rule.cookie }), windowStart: at - 300_000, threshold: rule.threshold ?? 5, banUntil: at + 600_000, keepUntil: at + 300_000 };
}

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
