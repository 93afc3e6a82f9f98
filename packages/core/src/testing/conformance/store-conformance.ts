import type { Store } from '../../ports/store.js';
import { attemptStoreConformanceCases, failureAt } from './attempt-store-conformance.js';
import { expectEqual, withHarness, type ConformanceClock, type PortHarness, type StoreConformanceCase } from './conformance-case.js';
import { failureBudgetConformanceCases } from './failure-budget-conformance.js';
import { recordStoreConformanceCases } from './record-store-conformance.js';
import { retiredTokenConformanceCases } from './retired-token-conformance.js';
import { ticketStoreConformanceCases } from './ticket-store-conformance.js';

export type { StoreConformanceCase } from './conformance-case.js';

/** What one case needs: a fresh, empty store and the clock it reads. */
export interface StoreConformanceHarness {
  store: Store;
  clock: ConformanceClock;
  /**
   * `count` independent clients of the same backing state as `store` (other connections, as other
   * processes would have); a store that lives in one process answers with `store` itself.
   */
  clients(count: number): Promise<Store[]>;
  cleanup?(): Promise<void>;
}

/**
 * The behaviour every Store must show: each port's own suite (named after the port) and the cases that
 * span ports. Framework-free so any test runner can run it: `for (const c of storeConformanceCases(make)) it(c.name, c.run)`.
 */
export function storeConformanceCases(makeHarness: () => Promise<StoreConformanceHarness>): StoreConformanceCase[] {
  const portOf =
    <Port>(pick: (store: Store) => Port) =>
    async (): Promise<PortHarness<Port>> => {
      const harness = await makeHarness();
      return { ...harness, store: pick(harness.store), clients: async (count) => (await harness.clients(count)).map(pick) };
    };
  const named = (port: string, cases: StoreConformanceCase[]): StoreConformanceCase[] =>
    cases.map((c) => ({ name: `${port}: ${c.name}`, run: c.run }));
  return [
    ...named('record', recordStoreConformanceCases(portOf((store) => store.record))),
    ...named('attempts', attemptStoreConformanceCases(portOf((store) => store.attempts))),
    ...named('budget', failureBudgetConformanceCases(portOf((store) => store.budget))),
    ...named('retiredTokens', retiredTokenConformanceCases(portOf((store) => store.retiredTokens))),
    ...named('tickets', ticketStoreConformanceCases(portOf((store) => store.tickets))),
    ...named('store', [
      {
        name: "clearGlobalFailures leaves every client key's failures alone",
        run: withHarness(makeHarness, async ({ store, clock }) => {
          await store.budget.addGlobalFailures(1000, 7, clock.now() + 3_600_000);
          await store.attempts.countFailure('203.0.113.7', failureAt(clock.now()));
          await store.budget.clearGlobalFailures();
          expectEqual(await store.budget.readGlobalFailures(0), [], 'buckets after the reset');
          expectEqual((await store.attempts.readAttempts('203.0.113.7'))?.failures.length, 1, "a client key's failures after the reset");
        }),
      },
    ]),
  ];
}
