import type { AttemptRecord, FailureTally, FailureToCount } from '../ports/store.js';

/** What counting a failure leaves behind: the record to keep and until when, or nothing to change. */
export interface TalliedFailure {
  tally: FailureTally;
  keep: { record: AttemptRecord; until: number } | null;
}

/**
 * The arithmetic of counting one failure against a client key's record, as BanPolicy's numbers say:
 * a running ban absorbs it, a cookie already in the window is not counted again, the failure that
 * reaches the threshold starts the ban (and empties the count). Stores without scripts of their own run this inside their atomic step.
 */
export function tallyFailure(record: AttemptRecord | null, failure: FailureToCount): TalliedFailure {
  if (record?.bannedUntil !== undefined && record.bannedUntil > failure.at) {
    return { tally: { kind: 'already_banned', bannedUntil: record.bannedUntil }, keep: null };
  }
  const failures = (record?.failures ?? []).filter((entry) => entry.at > failure.windowStart);
  if (failure.cookie !== undefined && failures.some((entry) => entry.cookie === failure.cookie)) {
    return { tally: { kind: 'repeated', failures: failures.length }, keep: null };
  }
  failures.push(failure.cookie === undefined ? { at: failure.at } : { at: failure.at, cookie: failure.cookie });
  if (failures.length >= failure.threshold) {
    return {
      tally: { kind: 'banned', bannedUntil: failure.banUntil },
      keep: { record: { failures: [], bannedUntil: failure.banUntil, lastFailureAt: failure.at }, until: failure.banUntil },
    };
  }
  return {
    tally: { kind: 'counted', failures: failures.length },
    keep: { record: { failures, lastFailureAt: failure.at }, until: failure.keepUntil },
  };
}

/** Whether a success may clear the record: not while a ban runs. */
export function clearable(record: AttemptRecord | null, now: number): boolean {
  return record !== null && (record.bannedUntil === undefined || record.bannedUntil <= now);
}
