import type { AttemptEntry, AttemptStore, FailureTally, FailureToCount } from '../../ports/attempt-store.js';
import { expectEqual, withHarness, type PortHarness, type StoreConformanceCase } from './conformance-case.js';

/** What every AttemptStore must do: count failures atomically, ban at the threshold, expire by the clock, read a client in one call. */
export function attemptStoreConformanceCases(makeHarness: () => Promise<PortHarness<AttemptStore>>): StoreConformanceCase[] {
  const run = (body: (harness: PortHarness<AttemptStore>) => Promise<void>) => withHarness(makeHarness, body);
  return [
    {
      name:
        'countFailure counts failures in the window; the one reaching the threshold bans and empties the count; a running ban ' +
        'absorbs more',
      run: run(async ({ store, clock }) => {
        const at = clock.now();
        expectEqual(await store.readAttempts('203.0.113.7'), null, 'attempts of an unknown key');
        expectEqual(
          await store.countFailure('203.0.113.7', failureAt(at, { threshold: 3 })),
          { kind: 'counted', failures: 1 },
          'first failure',
        );
        expectEqual(
          await store.countFailure('203.0.113.7', failureAt(at + 1, { threshold: 3, cookie: 'wrong-cookie' })),
          { kind: 'counted', failures: 2 },
          'second failure',
        );
        expectEqual(
          await store.readAttempts('203.0.113.7'),
          { failures: [{ at }, { at: at + 1, cookie: 'wrong-cookie' }], lastFailureAt: at + 1 },
          'attempts after two failures',
        );
        expectEqual(await store.readAttempts('198.51.100.1'), null, 'attempts of another key');
        const third = failureAt(at + 2, { threshold: 3 });
        expectEqual(
          await store.countFailure('203.0.113.7', third),
          { kind: 'banned', bannedUntil: third.banUntil },
          'the failure reaching the threshold',
        );
        expectEqual(
          await store.readAttempts('203.0.113.7'),
          { failures: [], bannedUntil: third.banUntil, lastFailureAt: at + 2 },
          'attempts once banned',
        );
        expectEqual(
          await store.countFailure('203.0.113.7', failureAt(at + 3, { threshold: 3 })),
          { kind: 'already_banned', bannedUntil: third.banUntil },
          'a failure while banned',
        );
        const read = await store.readAttempts('203.0.113.7');
        read?.failures.push({ at: 0 });
        expectEqual(
          await store.readAttempts('203.0.113.7'),
          { failures: [], bannedUntil: third.banUntil, lastFailureAt: at + 2 },
          'attempts after mutating the returned object',
        );
      }),
    },
    {
      name: 'countFailure counts a cookie once while it is in the window, and drops failures at or before windowStart',
      run: run(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('k', failureAt(at, { cookie: 'stale' }));
        expectEqual(
          await store.countFailure('k', failureAt(at + 10, { cookie: 'stale' })),
          { kind: 'repeated', failures: 1 },
          'the same cookie inside the window',
        );
        expectEqual(
          await store.countFailure('k', failureAt(at + 20, { cookie: 'other' })),
          { kind: 'counted', failures: 2 },
          'another cookie',
        );
        // windowStart = at: the failure at `at` has left the window, so its cookie counts again.
        expectEqual(
          await store.countFailure('k', { ...failureAt(at + 30, { cookie: 'stale' }), windowStart: at }),
          { kind: 'counted', failures: 2 },
          'the same cookie once its failure left the window',
        );
        expectEqual(
          (await store.readAttempts('k'))?.failures,
          [
            { at: at + 20, cookie: 'other' },
            { at: at + 30, cookie: 'stale' },
          ],
          'failures kept',
        );
      }),
    },
    {
      name: 'attempts expire at keepUntil, and a ban at banUntil',
      run: run(async ({ store, clock }) => {
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
        expectEqual(
          await store.countFailure('banned', failureAt(clock.now(), { threshold: 1 })).then((tally) => tally.kind),
          'banned',
          'a failure once the ban is over',
        );
      }),
    },
    {
      name: 'recordLogin forgets the failures, but never a running ban',
      run: run(async ({ store, clock }) => {
        const at = clock.now();
        await store.countFailure('counting', failureAt(at));
        await store.countFailure('banned', { ...failureAt(at, { threshold: 1 }), banUntil: at + 1_000 });
        await store.recordLogin('counting', at);
        await store.recordLogin('banned', at + 999);
        await store.recordLogin('never-counted', at);
        expectEqual(await store.readAttempts('counting'), null, 'cleared failures');
        expectEqual((await store.readAttempts('banned'))?.bannedUntil, at + 1_000, 'a running ban after recordLogin');
      }),
    },
    {
      name: 'deleteAttempts removes only that key, a running ban included, and deleting an unknown key is fine',
      run: run(async ({ store, clock }) => {
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
      run: run(async ({ store, clock }) => {
        const at = clock.now();
        expectEqual(await store.listAttempts(), [], 'attempts listed by an empty store');
        await store.countFailure('203.0.113.7', { ...failureAt(at, { threshold: 1 }), banUntil: at + 600_000 });
        await store.countFailure('2001:db8::/64', { ...failureAt(at, { cookie: 'wrong-cookie' }), keepUntil: at + 1_000 });
        await store.countFailure('deleted', failureAt(at));
        await store.deleteAttempts('deleted');
        const banned = { failures: [], bannedUntil: at + 600_000, lastFailureAt: at };
        const counting = { failures: [{ at, cookie: 'wrong-cookie' }], lastFailureAt: at };
        expectEqual(
          byKey(await store.listAttempts()),
          [
            { key: '2001:db8::/64', record: counting },
            { key: '203.0.113.7', record: banned },
          ],
          'attempts listed',
        );
        for (const entry of await store.listAttempts()) {
          entry.record.failures.push({ at: 0 });
          entry.record.bannedUntil = 0;
        }
        expectEqual(
          byKey(await store.listAttempts()),
          [
            { key: '2001:db8::/64', record: counting },
            { key: '203.0.113.7', record: banned },
          ],
          'attempts listed after mutating a listing',
        );
        clock.advance(999);
        expectEqual((await store.listAttempts()).length, 2, 'attempts listed 1 ms before one expires');
        clock.advance(1);
        expectEqual(await store.listAttempts(), [{ key: '203.0.113.7', record: banned }], 'attempts listed once one has expired');
      }),
    },
    {
      name: 'a login recorded with rememberUntil is remembered per key until then, and remembering again moves it',
      run: run(async ({ store, clock }) => {
        const recent = async (key: string): Promise<boolean> => (await store.readClient(key)).loggedInRecently;
        expectEqual(await recent('203.0.113.7'), false, 'a key never remembered');
        await store.recordLogin('203.0.113.7', clock.now(), clock.now() + 1_000);
        expectEqual(await recent('203.0.113.7'), true, 'a remembered key');
        expectEqual(await recent('203.0.113.8'), false, 'another key');
        clock.advance(999);
        expectEqual(await recent('203.0.113.7'), true, 'a remembered key 1 ms before until');
        clock.advance(1);
        expectEqual(await recent('203.0.113.7'), false, 'a remembered key at until');
        await store.recordLogin('2001:db8::/64', clock.now(), clock.now() + 1_000);
        await store.recordLogin('2001:db8::/64', clock.now(), clock.now() + 5_000);
        clock.advance(4_999);
        expectEqual(await recent('2001:db8::/64'), true, 'a key remembered again with a later until, 1 ms before it');
        clock.advance(1);
        expectEqual(await recent('2001:db8::/64'), false, 'a key remembered again, at its later until');
      }),
    },
    {
      name: 'readClient answers the failures, the ban and the recent login of one key in one call, copied out',
      run: run(async ({ store, clock }) => {
        const at = clock.now();
        expectEqual(await store.readClient('203.0.113.7'), { attempts: null, loggedInRecently: false }, 'an unknown key');
        await store.countFailure('203.0.113.7', failureAt(at, { cookie: 'wrong-cookie' }));
        expectEqual(
          await store.readClient('203.0.113.7'),
          { attempts: { failures: [{ at, cookie: 'wrong-cookie' }], lastFailureAt: at }, loggedInRecently: false },
          'a key with a failure',
        );
        const read = await store.readClient('203.0.113.7');
        read.attempts?.failures.push({ at: 0 });
        expectEqual((await store.readClient('203.0.113.7')).attempts?.failures.length, 1, 'failures after mutating the returned object');
        await store.recordLogin('203.0.113.7', at);
        expectEqual(
          await store.readClient('203.0.113.7'),
          { attempts: null, loggedInRecently: false },
          'a login recorded without rememberUntil clears the failures and is not remembered',
        );
        const ban = failureAt(at, { threshold: 1 });
        await store.countFailure('198.51.100.1', ban);
        await store.recordLogin('198.51.100.1', at, at + 1_000);
        expectEqual(
          await store.readClient('198.51.100.1'),
          { attempts: { failures: [], bannedUntil: ban.banUntil, lastFailureAt: at }, loggedInRecently: true },
          'a login remembered while a ban runs: both the ban and the login',
        );
      }),
    },
    {
      name: 'K clients: 50 concurrent failures of one key lose none, and exactly one starts the ban',
      run: run(async ({ clock, clients }) => {
        const stores = await clients(5);
        const at = clock.now();
        const race = (key: string, threshold: number): Promise<FailureTally[]> =>
          Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              (stores[i % stores.length] as AttemptStore).countFailure(key, failureAt(at, { threshold, cookie: `guess-${i}` })),
            ),
          );

        const counted = await race('203.0.113.50', 51);
        expectEqual(
          counted.map((tally) => (tally.kind === 'counted' ? tally.failures : -1)).sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i + 1),
          'counts told to 50 concurrent failures under a threshold of 51',
        );
        expectEqual((await (stores[1] as AttemptStore).readAttempts('203.0.113.50'))?.failures.length, 50, 'failures kept');

        const banning = await race('203.0.113.51', 5);
        expectEqual(banning.filter((tally) => tally.kind === 'banned').length, 1, 'failures that started a ban');
        expectEqual(banning.filter((tally) => tally.kind === 'counted').length, 4, 'failures counted before the ban');
        expectEqual(banning.filter((tally) => tally.kind === 'already_banned').length, 45, 'failures absorbed by the ban');
      }),
    },
    {
      name: 'K clients: a failure counted by one is cleared by another, and a login remembered by one is read by another',
      run: run(async ({ clock, clients }) => {
        const [first, second] = (await clients(2)) as [AttemptStore, AttemptStore];
        await first.countFailure('203.0.113.9', failureAt(clock.now()));
        expectEqual(
          (await second.readAttempts('203.0.113.9'))?.failures.length,
          1,
          'a failure counted by the first client, read by the second',
        );
        await second.recordLogin('203.0.113.9', clock.now(), clock.now() + 1_000);
        expectEqual(await first.readAttempts('203.0.113.9'), null, 'the failure after the second client cleared it');
        expectEqual(
          (await first.readClient('203.0.113.9')).loggedInRecently,
          true,
          'a login remembered by the second client, read by the first',
        );
      }),
    },
  ];
}

/** A failure at `at` under a five-minute window, threshold 5 and a ten-minute ban, unless `rule` says otherwise. */
export function failureAt(at: number, rule: { threshold?: number; cookie?: string } = {}): FailureToCount {
  return {
    at,
    ...(rule.cookie === undefined ? {} : { cookie: rule.cookie }),
    windowStart: at - 300_000,
    threshold: rule.threshold ?? 5,
    banUntil: at + 600_000,
    keepUntil: at + 300_000,
  };
}

/** Listings come in no particular order; compare them by key. */
function byKey(entries: AttemptEntry[]): AttemptEntry[] {
  return [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
