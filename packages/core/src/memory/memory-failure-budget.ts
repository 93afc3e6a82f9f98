import type { Clock } from '../ports/clock.js';
import type { BudgetBucket, FailureBudgetStore } from '../ports/failure-budget-store.js';

/** The global failure budget's minute buckets, in memory. */
export class MemoryFailureBudget implements FailureBudgetStore {
  private readonly buckets = new Map<number, { count: number; expiresAt: number }>();

  constructor(private readonly clock: Clock) {}

  async addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    // At most one bucket per minute of the window is live: dropping the expired ones keeps the map that small.
    for (const [key, entry] of this.buckets) if (entry.expiresAt <= now) this.buckets.delete(key);
    const current = this.buckets.get(bucket);
    this.buckets.set(bucket, { count: (current?.count ?? 0) + count, expiresAt: Math.max(expiresAt, current?.expiresAt ?? 0) });
  }

  async readGlobalFailures(fromBucket: number): Promise<BudgetBucket[]> {
    const now = this.clock.now();
    const live: BudgetBucket[] = [];
    for (const [bucket, entry] of this.buckets)
      if (bucket >= fromBucket && entry.expiresAt > now) live.push({ bucket, count: entry.count });
    return live.sort((a, b) => a.bucket - b.bucket);
  }

  async clearGlobalFailures(): Promise<void> {
    this.buckets.clear();
  }
}
