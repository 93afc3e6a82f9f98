import { describe, expect, it } from 'vitest';
import {
  BUDGET_BUCKET_MS,
  BUDGET_WINDOW_BUCKETS,
  MAX_BUDGET_DELAY_MS,
  bucketExpiry,
  budgetBucket,
  budgetVerdict,
  oldestLiveBucket,
} from './global-failure-budget.js';

const MINUTE = 60_000;
// A minute boundary, so bucket arithmetic in the cases below is exact.
const T0 = Date.UTC(2026, 0, 1);
const B0 = T0 / MINUTE;

/** One bucket holding `total` failures, judged at `now`. */
const verdictFor = (total: number, budget: number, now = T0) => budgetVerdict([{ bucket: budgetBucket(now), count: total }], budget, now);

describe('budget buckets', () => {
  it('count per minute and last an hour', () => {
    expect(BUDGET_BUCKET_MS).toBe(MINUTE);
    expect(BUDGET_WINDOW_BUCKETS).toBe(60);
    expect(MAX_BUDGET_DELAY_MS).toBe(5_000);
  });

  it('a time falls into the bucket of its minute', () => {
    expect(budgetBucket(T0)).toBe(B0);
    expect(budgetBucket(T0 + MINUTE - 1)).toBe(B0);
    expect(budgetBucket(T0 + MINUTE)).toBe(B0 + 1);
  });

  it('a bucket expires exactly 60 minutes after the start of its minute', () => {
    expect(bucketExpiry(B0)).toBe(T0 + 60 * MINUTE);
  });

  it('the oldest live bucket is the one that has not expired yet: 1 ms before its expiry it still is, at it no longer', () => {
    expect(oldestLiveBucket(bucketExpiry(B0) - 1)).toBe(B0);
    expect(oldestLiveBucket(bucketExpiry(B0))).toBe(B0 + 1);
    expect(oldestLiveBucket(T0)).toBe(B0 - 59);
  });
});

describe('budgetVerdict', () => {
  it('is open at and below the budget', () => {
    expect(verdictFor(0, 10)).toEqual({ kind: 'open' });
    expect(verdictFor(9, 10)).toEqual({ kind: 'open' });
    expect(verdictFor(10, 10)).toEqual({ kind: 'open' });
    expect(budgetVerdict([], 10, T0)).toEqual({ kind: 'open' });
  });

  it('sums every bucket it is given', () => {
    const buckets = [
      { bucket: B0 - 2, count: 4 },
      { bucket: B0 - 1, count: 4 },
      { bucket: B0, count: 3 },
    ];
    expect(budgetVerdict(buckets, 10, T0)).toEqual({ kind: 'delayed', delayMs: 100 });
    expect(budgetVerdict(buckets, 11, T0)).toEqual({ kind: 'open' });
  });

  it('delays just past the budget by 100 ms, doubling for every further failure when the budget is 10', () => {
    const delays = [11, 12, 13, 14, 15, 16].map((total) => verdictFor(total, 10));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200].map((delayMs) => ({ kind: 'delayed', delayMs })));
  });

  it('doubles every tenth of the budget (budget 100: 10 failures per doubling)', () => {
    expect(verdictFor(101, 100)).toEqual({ kind: 'delayed', delayMs: 100 });
    expect(verdictFor(111, 100)).toEqual({ kind: 'delayed', delayMs: 200 });
    expect(verdictFor(121, 100)).toEqual({ kind: 'delayed', delayMs: 400 });
    expect(verdictFor(151, 100)).toEqual({ kind: 'delayed', delayMs: 3200 });
    // Between the doublings the delay grows smoothly: 2^(9/10) * 100 ms.
    expect(verdictFor(110, 100)).toEqual({ kind: 'delayed', delayMs: 187 });
  });

  it('caps the delay at 5000 ms up to twice the budget', () => {
    expect(verdictFor(17, 10)).toEqual({ kind: 'delayed', delayMs: MAX_BUDGET_DELAY_MS });
    expect(verdictFor(20, 10)).toEqual({ kind: 'delayed', delayMs: MAX_BUDGET_DELAY_MS });
    expect(verdictFor(157, 100)).toEqual({ kind: 'delayed', delayMs: 4850 });
    expect(verdictFor(158, 100)).toEqual({ kind: 'delayed', delayMs: MAX_BUDGET_DELAY_MS });
    expect(verdictFor(200, 100)).toEqual({ kind: 'delayed', delayMs: MAX_BUDGET_DELAY_MS });
  });

  it('a budget below 10 still doubles per failure', () => {
    expect(verdictFor(3, 2)).toEqual({ kind: 'delayed', delayMs: 100 });
    expect(verdictFor(4, 2)).toEqual({ kind: 'delayed', delayMs: 200 });
    expect(verdictFor(5, 2)).toMatchObject({ kind: 'throttled' });
  });

  it('throttles past twice the budget until the one bucket holding them all leaves the hour', () => {
    expect(verdictFor(21, 10)).toEqual({ kind: 'throttled', retryAfterSeconds: 3600 });
    expect(verdictFor(21, 10, T0 + 30_000)).toEqual({ kind: 'throttled', retryAfterSeconds: 3570 });
    expect(verdictFor(1000, 10, T0 + 1)).toEqual({ kind: 'throttled', retryAfterSeconds: 3600 });
  });

  it('Retry-After is the time until enough of the oldest buckets have left the hour', () => {
    const now = T0 + 30 * MINUTE + 500;
    const buckets = [
      { bucket: B0, count: 3 },
      { bucket: B0 + 10, count: 3 },
      { bucket: B0 + 20, count: 3 },
      { bucket: B0 + 30, count: 17 },
    ];
    // 26 now; 23 once B0 leaves, 20 once B0+10 leaves: then the next attempt is admitted again.
    expect(budgetVerdict(buckets, 10, now)).toEqual({
      kind: 'throttled',
      retryAfterSeconds: Math.ceil((bucketExpiry(B0 + 10) - now) / 1000),
    });
    expect(budgetVerdict(buckets, 10, now)).toEqual({ kind: 'throttled', retryAfterSeconds: 40 * 60 });
    // The same 26 with more of them in the oldest bucket: its leaving alone brings them down to 20.
    const oldestHeavy = [
      { bucket: B0, count: 6 },
      { bucket: B0 + 10, count: 3 },
      { bucket: B0 + 20, count: 3 },
      { bucket: B0 + 30, count: 14 },
    ];
    expect(budgetVerdict(oldestHeavy, 10, now)).toEqual({ kind: 'throttled', retryAfterSeconds: 30 * 60 });
  });

  it('Retry-After rounds up to whole seconds: 1 ms before the oldest bucket expires it is 1 s, never 0', () => {
    const buckets = [
      { bucket: B0, count: 5 },
      { bucket: B0 + 59, count: 20 },
    ];
    expect(budgetVerdict(buckets, 10, bucketExpiry(B0) - 1)).toEqual({ kind: 'throttled', retryAfterSeconds: 1 });
    expect(budgetVerdict(buckets, 10, bucketExpiry(B0) - 1001)).toEqual({ kind: 'throttled', retryAfterSeconds: 2 });
    // At the expiry instant a store no longer returns B0; if handed it anyway, the answer stays at least 1 s.
    expect(budgetVerdict(buckets, 10, bucketExpiry(B0))).toEqual({ kind: 'throttled', retryAfterSeconds: 1 });
    expect(budgetVerdict(buckets.slice(1), 10, bucketExpiry(B0))).toEqual({ kind: 'delayed', delayMs: MAX_BUDGET_DELAY_MS });
  });

  it('a budget of 0 (or below) is always open', () => {
    expect(verdictFor(0, 0)).toEqual({ kind: 'open' });
    expect(verdictFor(1_000_000, 0)).toEqual({ kind: 'open' });
    expect(verdictFor(1_000_000, -1)).toEqual({ kind: 'open' });
  });
});
