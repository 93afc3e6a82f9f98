import type { FailureBudgetStore } from '../../ports/failure-budget-store.js';
import { expectEqual, withHarness, type PortHarness, type StoreConformanceCase } from './conformance-case.js';

/** What every FailureBudgetStore must do: sum per bucket, expire each bucket on its own, forget all at once, share one budget. */
export function failureBudgetConformanceCases(makeHarness: () => Promise<PortHarness<FailureBudgetStore>>): StoreConformanceCase[] {
  const run = (body: (harness: PortHarness<FailureBudgetStore>) => Promise<void>) => withHarness(makeHarness, body);
  return [
    {
      name:
        'addGlobalFailures sums per bucket, negative counts subtract, readGlobalFailures returns the buckets from fromBucket on, ' +
        'oldest first',
      run: run(async ({ store, clock }) => {
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
      run: run(async ({ store, clock }) => {
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
      run: run(async ({ store, clock }) => {
        const expiresAt = clock.now() + 3_600_000;
        await store.clearGlobalFailures();
        expectEqual(await store.readGlobalFailures(0), [], 'buckets after clearing an empty store');
        await store.addGlobalFailures(1000, 7, expiresAt);
        await store.addGlobalFailures(1001, 2, expiresAt);
        await store.clearGlobalFailures();
        expectEqual(await store.readGlobalFailures(0), [], 'buckets after the reset');
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
      run: run(async ({ clock, clients }) => {
        const [first, second] = (await clients(2)) as [FailureBudgetStore, FailureBudgetStore];
        const expiresAt = clock.now() + 3_600_000;
        await first.addGlobalFailures(500, 3, expiresAt);
        await second.addGlobalFailures(500, 4, expiresAt);
        expectEqual(await first.readGlobalFailures(0), [{ bucket: 500, count: 7 }], 'the budget read by the first client');
        await second.clearGlobalFailures();
        expectEqual(await first.readGlobalFailures(0), [], 'the budget read by the first client after the second cleared it');
      }),
    },
  ];
}
