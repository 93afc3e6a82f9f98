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
    if (remaining <= hardCap)
      return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((bucketExpiry(entry.bucket) - now) / 1000)) };
  }
  return { kind: 'throttled', retryAfterSeconds: 1 };
}

/** The budget as an operator sees it: failures in the hour, and what a new client without a recent login meets now. */
export interface BudgetState {
  /** Failures per hour before new clients are held back; 0: the budget is off. */
  limit: number;
  failures: number;
  state: 'off' | 'open' | 'delayed' | 'throttled';
  delayMs: number | null;
  retryAfterSeconds: number | null;
}

/** The state of the budget for the live `buckets` (oldest first), judged as the verdict on one more attempt. */
export function budgetState(buckets: ReadonlyArray<{ bucket: number; count: number }>, budget: number, now: number): BudgetState {
  // A hold given back after an operator's reset can leave a bucket below nothing; no one sees fewer than none.
  const failures = Math.max(
    0,
    buckets.reduce((total, entry) => total + entry.count, 0),
  );
  if (budget <= 0) return { limit: 0, failures, state: 'off', delayMs: null, retryAfterSeconds: null };
  const current = budgetBucket(now);
  const withNext = [
    ...buckets.filter((entry) => entry.bucket !== current),
    { bucket: current, count: (buckets.find((entry) => entry.bucket === current)?.count ?? 0) + 1 },
  ];
  const verdict = budgetVerdict(withNext, budget, now);
  return {
    limit: budget,
    failures,
    state: verdict.kind,
    delayMs: verdict.kind === 'delayed' ? verdict.delayMs : null,
    retryAfterSeconds: verdict.kind === 'throttled' ? verdict.retryAfterSeconds : null,
  };
}
