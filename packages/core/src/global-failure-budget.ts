/** Failures across all addresses are counted per minute; a minute's count lasts an hour. */
export const BUDGET_BUCKET_MS = 60_000;
export const BUDGET_WINDOW_BUCKETS = 60;
/** The longest a verification is held back while the budget is spent. */
export const MAX_BUDGET_DELAY_MS = 5_000;
const FIRST_DELAY_MS = 100;

export type BudgetVerdict = { kind: 'open' } | { kind: 'delayed'; delayMs: number } | { kind: 'throttled'; retryAfterSeconds: number };

export const budgetBucket = (now: number): number => Math.floor(now / BUDGET_BUCKET_MS);
/** The first bucket still inside the hour that ends with `now`. */
export const oldestLiveBucket = (now: number): number => budgetBucket(now) - BUDGET_WINDOW_BUCKETS + 1;
export const bucketExpiry = (bucket: number): number => (bucket + BUDGET_WINDOW_BUCKETS) * BUDGET_BUCKET_MS;

/**
 * Past `budget` failures in the hour every further attempt waits, twice as long for each tenth of the
 * budget spent beyond it (100 ms up to 5 s); at twice the budget it is refused until enough minutes
 * leave the window. `buckets` hold the live counts, oldest first, the attempt being judged included.
 */
export function budgetVerdict(buckets: ReadonlyArray<{ bucket: number; count: number }>, budget: number, now: number): BudgetVerdict {
  if (budget <= 0) return { kind: 'open' };
  let total = 0;
  for (const entry of buckets) total += entry.count;
  if (total <= budget) return { kind: 'open' };
  const hardCap = 2 * budget;
  if (total <= hardCap) {
    const step = Math.max(1, budget / 10);
    return { kind: 'delayed', delayMs: Math.min(MAX_BUDGET_DELAY_MS, Math.round(FIRST_DELAY_MS * 2 ** ((total - budget - 1) / step))) };
  }
  let remaining = total;
  for (const entry of buckets) {
    remaining -= entry.count;
    if (remaining <= hardCap) return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((bucketExpiry(entry.bucket) - now) / 1000)) };
  }
  return { kind: 'throttled', retryAfterSeconds: 1 };
}
