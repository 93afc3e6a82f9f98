import type { Awaitable } from './awaitable.js';
/** Failed verifications of one client key inside the sliding window, and its ban. */
export interface AttemptRecord {
  /** Times of the counted failures, oldest first. */
  failures: Array<{ at: number; cookie?: string }>;
  bannedUntil?: number;
  /** When the last counted failure happened: the failures are emptied when a ban starts, this is not. */
  lastFailureAt?: number;
}

/** A client key's attempt record, as listed for operators. */
export interface AttemptEntry {
  key: string;
  record: AttemptRecord;
}

/** What admitting an attempt needs to know of one client key: its failures and ban, and whether it logged in lately. */
export interface ClientState {
  attempts: AttemptRecord | null;
  loggedInRecently: boolean;
  /**
   * Set when the key has no record and the failure counts are full (maxAttemptKeys): a failure of it could not be kept, so
   * it is refused before its secret is checked. The earliest time a count leaves the window and makes room.
   */
  countsFullUntil?: number;
}

/**
 * One failed verification to count, with the numbers to count it by: BanPolicy decides them, the
 * store applies them in one atomic step, so processes sharing a store never lose a failure.
 */
export interface FailureToCount {
  at: number;
  /** A wrong cookie value: not counted again while a failure with the same value is in the window. */
  cookie?: string;
  /** Failures at or before this time have left the window. */
  windowStart: number;
  /** Failures in the window, this one included, that start a ban. */
  threshold: number;
  /** When a ban started by this failure ends. */
  banUntil: number;
  /** Until when a record without a ban is kept: its newest failure leaving the window. */
  keepUntil: number;
}

/** What counting a failure did. */
export type FailureTally =
  | { kind: 'already_banned'; bannedUntil: number }
  | { kind: 'repeated'; failures: number }
  | { kind: 'counted'; failures: number }
  | { kind: 'banned'; bannedUntil: number }
  /**
   * Not kept: the key had no failures in the window and the store's failure counters are full (maxAttemptKeys). Running bans
   * are never evicted to make room; the failure still counts against the global budget.
   */
  | { kind: 'full' };

/**
 * What the store knows of each client key: its failures and ban, and its recent login. Each call is one
 * atomic step (one round trip on a shared store), so processes sharing it never lose a failure.
 */
export interface AttemptStore {
  /**
   * Counts a failure of a client key (and starts the ban it may lead to) in one atomic step. Only the counts under the threshold
   * are capped: a running ban is kept until it ends, whatever else is counted, and a new key that finds the counts full is
   * refused (`full`).
   */
  countFailure(key: string, failure: FailureToCount): Promise<FailureTally>;
  /**
   * A login of the client key: forgets its failures unless a ban runs at `now` (a ban ends only when its
   * time is up) and, given `rememberUntil`, remembers the login until then; the store may forget the oldest login when full.
   */
  recordLogin(key: string, now: number, rememberUntil?: number): Promise<void>;
  /**
   * The admission read: the key's failures and ban, and whether its login is still remembered, in one call. A store holding
   * them in memory answers at once (Awaitable).
   */
  readClient(key: string): Awaitable<ClientState>;
  /** A client key's failures and ban, or null when it has none. */
  readAttempts(key: string): Promise<AttemptRecord | null>;
  /** Forgets a client key's failures and ban (an operator's lift). */
  deleteAttempts(key: string): Promise<void>;
  /** Every attempt record not expired yet, in no particular order. */
  listAttempts(): Promise<AttemptEntry[]>;
}
