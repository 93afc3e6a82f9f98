// What the ban policy answers: a client's status, an admission, a failure's outcome, an operator's view of a key.

export type BanStatus = { banned: false } | { banned: true; retryAfterSeconds: number };

/** Why a failure did not count toward a ban. */
export type UncountedReason = 'repeated_cookie' | 'stale_session' | 'exempt';

export type FailureOutcome =
  | { banned: true; retryAfterSeconds: number; justBanned: boolean }
  | { banned: false; remainingAttempts: number; remind: boolean; counted: true }
  | { banned: false; remainingAttempts: number; remind: false; counted: false; reason: UncountedReason };

/**
 * Whether an attempt at a secret may go ahead, decided before the secret is looked at: `hold` is the
 * attempt's place in the global budget, given back by recordSuccess or an uncounted recordFailure.
 */
export type Admission = (
  | { kind: 'open' }
  | { kind: 'delayed'; delayMs: number }
  | { kind: 'banned'; retryAfterSeconds: number }
  | { kind: 'throttled'; retryAfterSeconds: number }
) & { hold: number | null };

/** What a verified secret was: the access token, or an API key (which is nobody's login of the token). */
export type VerifiedCredential = 'token' | 'key';

export type LiftRefusal = 'invalid_target' | 'own_ban';

/** One client key as an operator sees it. */
export interface BanEntry {
  key: string;
  /** Failures counted in the window (0 while banned: a ban starts a new count). */
  failures: number;
  bannedUntil: number | null;
  lastFailureAt: number | null;
}
