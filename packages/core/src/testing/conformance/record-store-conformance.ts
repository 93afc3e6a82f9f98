import type { RecordStore } from '../../ports/record-store.js';
import type { TokenRecord } from '../../ports/token-record.js';
import { expectEqual, withHarness, type PortHarness, type StoreConformanceCase } from './conformance-case.js';
import { overwriteRecord } from '../overwrite-record.js';

/** What every RecordStore must do: copy records in and out, compare-and-set atomically, tell every change. */
export function recordStoreConformanceCases(makeHarness: () => Promise<PortHarness<RecordStore>>): StoreConformanceCase[] {
  const run = (body: (harness: PortHarness<RecordStore>) => Promise<void>) => withHarness(makeHarness, body);
  return [
    {
      name: 'readRecord returns null when nothing was written',
      run: run(async ({ store }) => {
        expectEqual(await store.readRecord(), null, 'readRecord on an empty store');
      }),
    },
    {
      name: 'writeRecord then readRecord round-trips every field when the optional ones are present',
      run: run(async ({ store }) => {
        for (const record of [FULL_RECORD, { ...FULL_RECORD, tokenSource: 'temporary' as const, firstSetupCompleted: false }]) {
          await overwriteRecord(store, record);
          expectEqual(await store.readRecord(), record, 'record read back');
        }
      }),
    },
    {
      name: 'writeRecord then readRecord leaves the optional fields absent when they were absent',
      run: run(async ({ store }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const read = await store.readRecord();
        expectEqual(read, MINIMAL_RECORD, 'record read back');
        expectEqual(read?.tokenSource, undefined, 'tokenSource of a record written without one');
        expectEqual(read?.secretKeyFingerprint, undefined, 'secretKeyFingerprint of a record written without one');
      }),
    },
    {
      name: 'writeRecord replaces the previous record, optional fields included',
      run: run(async ({ store }) => {
        await overwriteRecord(store, FULL_RECORD);
        await overwriteRecord(store, MINIMAL_RECORD);
        expectEqual(await store.readRecord(), MINIMAL_RECORD, 'record after a second write');
      }),
    },
    {
      name: 'onRecordChanged tells every listener the new record and the one it replaced by the time the write resolves',
      run: run(async ({ store }) => {
        const seen: Array<[unknown, unknown]> = [];
        const unsubscribe = store.onRecordChanged((record, previous) => seen.push([record, previous]));
        await overwriteRecord(store, MINIMAL_RECORD);
        expectEqual(seen, [[MINIMAL_RECORD, null]], 'changes after the first write');
        await overwriteRecord(store, FULL_RECORD);
        expectEqual(
          seen,
          [
            [MINIMAL_RECORD, null],
            [FULL_RECORD, MINIMAL_RECORD],
          ],
          'changes after the second write',
        );
        await overwriteRecord(store, FULL_RECORD);
        expectEqual(seen.length, 2, 'changes heard after writing the same record again');
        unsubscribe();
        await overwriteRecord(store, MINIMAL_RECORD);
        expectEqual(seen.length, 2, 'changes heard after unsubscribing');
      }),
    },
    {
      name: 'a record-change listener that throws stops neither the write nor the other listeners',
      run: run(async ({ store }) => {
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
      run: run(async ({ store }) => {
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
      name: '20 concurrent swaps from one record: exactly one wins, whole, and every loser is told the winner',
      run: run(async ({ store }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const records: TokenRecord[] = Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? {
                accessToken: `concurrent-token-${i}`,
                tokenSource: 'configured',
                firstSetupCompleted: true,
                secretKeyFingerprint: `${i}`.repeat(8),
              }
            : { accessToken: `concurrent-token-${i}`, firstSetupCompleted: false },
        );
        const swaps = await Promise.all(records.map((record) => store.swapRecord(MINIMAL_RECORD, record)));
        const winners = records.filter((_, i) => swaps[i]?.swapped);
        expectEqual(winners.length, 1, 'swaps that won');
        expectEqual(await store.readRecord(), winners[0], 'record after the race');
        for (const swap of swaps) if (!swap.swapped) expectEqual(swap.current, winners[0], 'the current record a losing swap is told');
        expectEqual(
          await store.swapRecord(MINIMAL_RECORD, FULL_RECORD),
          { swapped: false, current: winners[0] },
          'a swap from a record that is no longer current',
        );
      }),
    },
    {
      name: 'swapRecord from null writes only into an empty store',
      run: run(async ({ store }) => {
        expectEqual(await store.swapRecord(null, MINIMAL_RECORD), { swapped: true }, 'a swap from null into an empty store');
        expectEqual(
          await store.swapRecord(null, FULL_RECORD),
          { swapped: false, current: MINIMAL_RECORD },
          'a swap from null once a record exists',
        );
        expectEqual(await store.readRecord(), MINIMAL_RECORD, 'record kept');
      }),
    },
    {
      name: 'K clients: two concurrent token updates leave one of the two records, whole, and both clients read it',
      run: run(async ({ store, clients }) => {
        await overwriteRecord(store, MINIMAL_RECORD);
        const [first, second] = (await clients(2)) as [RecordStore, RecordStore];
        const updates: TokenRecord[] = [
          { ...FULL_RECORD, accessToken: 'update-from-first-client-0123' },
          { accessToken: 'update-from-second-client-456', tokenSource: 'temporary', firstSetupCompleted: true },
        ];
        const swaps = await Promise.all([
          first.swapRecord(MINIMAL_RECORD, updates[0] as TokenRecord),
          second.swapRecord(MINIMAL_RECORD, updates[1] as TokenRecord),
        ]);
        expectEqual(swaps.filter((swap) => swap.swapped).length, 1, 'updates that won');
        const winner = swaps[0]?.swapped ? updates[0] : updates[1];
        expectEqual(await first.readRecord(), winner, 'record read by the first client');
        expectEqual(await second.readRecord(), winner, 'record read by the second client');
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
    {
      name: 'deploy-script',
      scope: 'admin',
      keyHash: 'cd'.repeat(32),
      createdAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      expiresAt: Date.UTC(2026, 3, 2),
      lastUsedAt: null,
    },
    {
      name: 'monitor',
      scope: 'read',
      keyHash: 'ef'.repeat(32),
      createdAt: Date.UTC(2026, 0, 1),
      expiresAt: null,
      lastUsedAt: Date.UTC(2026, 0, 3),
    },
  ],
};

const MINIMAL_RECORD: TokenRecord = { accessToken: 'minimal-token-0123456789', firstSetupCompleted: false };
