import { addressIn, banTargetMatches, parseBanTarget } from './ban-target.js';
import {
  budgetBucket,
  bucketExpiry,
  budgetState,
  budgetVerdict,
  oldestLiveBucket,
  type BudgetState,
  type BudgetVerdict,
} from './global-failure-budget.js';
import { clientKey, parseIp } from '../../net/ip-address.js';
import type { Clock } from '../../ports/clock.js';
import { andThen, type Awaitable } from '../../ports/awaitable.js';
import type { AttemptRecord, ClientState, FailureTally, Store } from '../../ports/store.js';
import { err, ok, type Result } from '../result.js';
import { tokenFingerprint } from '../tokens/token-fingerprint.js';
import { DEFAULT_BAN_POLICY, type BanPolicyOptions } from './ban-policy-options.js';
import type { Admission, BanEntry, BanStatus, FailureOutcome, LiftRefusal, UncountedReason, VerifiedCredential } from './ban-verdicts.js';

export { DEFAULT_BAN_POLICY, type BanPolicyOptions } from './ban-policy-options.js';
export type { Admission, BanEntry, BanStatus, FailureOutcome, LiftRefusal, UncountedReason, VerifiedCredential } from './ban-verdicts.js';

/** Tells whether a presented secret is a live API key, without counting or writing anything (ApiKeys.matches). */
export interface KnownKeys {
  matches(secret: string): Promise<boolean>;
}

const NO_KEYS: KnownKeys = { matches: async () => false };

/**
 * Brute-force protection (the specification's "Client IP ban" table; a ban refuses even the right token,
 * wrong cookies count, each distinct one once per window: docs/decisions/0002-failed-verification-and-bans.md, docs/decisions/0003-client-address.md, docs/decisions/0004-guessing-through-the-cookie.md), clients keyed by IPv4 address or
 * IPv6 /64 (one host cannot rotate through its prefix), plus what keeps it aimed at real guesses: exempt
 * networks, stale sessions, and a budget shared by all addresses against botnets.
 */
export class BanPolicy {
  private readonly options: BanPolicyOptions;
  // Retirements not yet in the store (callers such as createCore's record listener do not wait for them): a stale cookie checked
  // meanwhile waits too.
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly store: Pick<Store, 'attempts' | 'budget' | 'retiredTokens'>,
    private readonly clock: Clock,
    options: Partial<BanPolicyOptions> = {},
    private readonly keys: KnownKeys = NO_KEYS,
  ) {
    this.options = { ...DEFAULT_BAN_POLICY, ...options };
  }

  async status(clientIp: string): Promise<BanStatus> {
    if (addressIn(this.options.exempt, clientIp)) return { banned: false };
    return this.banStatus(await this.store.attempts.readAttempts(keyOf(clientIp)), this.clock.now());
  }

  /**
   * Decides whether an attempt may be checked at all: exempt clients always, banned ones never, and
   * while the global budget is spent, clients without a recent login wait or are turned away. An
   * admitted attempt holds its place in the budget at once, so parallel guesses cannot slip past it. While a flood
   * keeps the failure counts full, a client without a record is turned away too (its failure could not be kept).
   * `secret`, when the attempt's secret is known before it is checked: a live API key (256 random bits,
   * nothing to guess) passes the budget without spending it; a banned address stays banned.
   * A client the store answers for at once (Awaitable), banned or logged in recently, is answered at once.
   */
  admit(clientIp: string, attempt: { secret?: string } = {}): Awaitable<Admission> {
    if (addressIn(this.options.exempt, clientIp)) return { kind: 'open', hold: null };
    // One read for the ban and the recent login: one round trip on a shared store.
    return andThen(this.store.attempts.readClient(keyOf(clientIp)), (client) => this.admitClient(client, attempt));
  }

  private admitClient(client: ClientState, attempt: { secret?: string }): Awaitable<Admission> {
    const ban = this.banStatus(client.attempts, this.clock.now());
    if (ban.banned) return { kind: 'banned', retryAfterSeconds: ban.retryAfterSeconds, hold: null };
    if (client.loggedInRecently) return { kind: 'open', hold: null };
    if (client.countsFullUntil === undefined && this.options.globalFailureBudget <= 0) return { kind: 'open', hold: null };
    return this.admitAgainstBudget(client.countsFullUntil, attempt);
  }

  /** An attempt of a client neither banned nor logged in recently, while the global budget counts. */
  private async admitAgainstBudget(countsFullUntil: number | undefined, attempt: { secret?: string }): Promise<Admission> {
    if (attempt.secret !== undefined && (await this.keys.matches(attempt.secret))) return { kind: 'open', hold: null };
    if (countsFullUntil !== undefined) return this.refuseUncountable(countsFullUntil);
    const now = this.clock.now();
    const bucket = await this.spend(now);
    const verdict: BudgetVerdict = budgetVerdict(
      await this.store.budget.readGlobalFailures(oldestLiveBucket(now)),
      this.options.globalFailureBudget,
      now,
    );
    if (verdict.kind === 'throttled') {
      // Turned away before any secret was looked at: not an attempt, so it does not keep the budget spent.
      await this.release(bucket);
      return { ...verdict, hold: null };
    }
    return { ...verdict, hold: bucket };
  }

  /**
   * Counts a failed verification. A wrong cookie value is counted once per window, so a stale
   * cookie polled every second does not ban its owner while every distinct guess still counts; a
   * cookie holding a token that was valid within the session lifetime is a stale session and never counts.
   */
  async recordFailure(
    clientIp: string,
    failure: { cookie?: string; presented?: readonly string[]; hold?: number | null } = {},
  ): Promise<FailureOutcome> {
    const reason = await this.uncountedReason(clientIp, failure);
    if (reason) {
      if (failure.hold != null) await this.release(failure.hold);
      return { banned: false, remainingAttempts: this.options.threshold, remind: false, counted: false, reason };
    }
    const outcome = await this.countFailure(keyOf(clientIp), failure.cookie);
    // The failure that starts a ban was counted like any guess, so it stays in the budget; one recorded while a ban runs counts nowhere.
    const guessed = outcome.banned ? outcome.justBanned : outcome.counted;
    if (!guessed) {
      if (failure.hold != null) await this.release(failure.hold);
    } else if (failure.hold == null && this.options.globalFailureBudget > 0) {
      await this.spend(this.clock.now());
    }
    return outcome;
  }

  /**
   * A successful verification of the access token clears the count (a running ban ends only when its time is up)
   * and marks the client as recently logged in. An API key's only gives its place in the budget back: using a
   * key must not wipe the address's token guesses or let them past the budget.
   */
  async recordSuccess(
    clientIp: string,
    admission: { hold: number | null } = { hold: null },
    success: { credential?: VerifiedCredential } = {},
  ): Promise<void> {
    if (admission.hold !== null) await this.release(admission.hold);
    if (success.credential === 'key') return;
    const key = keyOf(clientIp);
    const now = this.clock.now();
    // Renewed at every login, so "logged in within the session lifetime" counts from the last one.
    if (this.options.globalFailureBudget > 0) await this.store.attempts.recordLogin(key, now, now + this.options.sessionLifetimeMs);
    else await this.store.attempts.recordLogin(key, now);
  }

  /** Remembers a token that stopped being the access token, by fingerprint only, for the session lifetime from now. */
  async retireToken(token: string): Promise<void> {
    // The lifetime starts when the token was replaced, not when hashing it finished.
    const until = this.clock.now() + this.options.sessionLifetimeMs;
    const retiring = (async () => this.store.retiredTokens.retireToken(await tokenFingerprint(token), until))();
    this.retiring.add(retiring);
    try {
      await retiring;
    } finally {
      this.retiring.delete(retiring);
    }
  }

  /** How many client keys are banned now (the metrics' gauge): list()'s count of bans, without building and sorting entries. */
  async countBanned(): Promise<number> {
    const now = this.clock.now();
    let banned = 0;
    for (const { record } of await this.store.attempts.listAttempts())
      if (record.bannedUntil !== undefined && record.bannedUntil > now) banned++;
    return banned;
  }

  /** Every client key with failures in the window or a running ban: banned first, then the most recent failure first. */
  async list(): Promise<BanEntry[]> {
    const now = this.clock.now();
    const entries: BanEntry[] = [];
    for (const { key, record } of await this.store.attempts.listAttempts()) {
      const entry = this.entryOf(key, record, now);
      if (entry.failures > 0 || entry.bannedUntil !== null) entries.push(entry);
    }
    return entries.sort(
      (a, b) =>
        Number(b.bannedUntil !== null) - Number(a.bannedUntil !== null) ||
        (b.lastFailureAt ?? 0) - (a.lastFailureAt ?? 0) ||
        a.key.localeCompare(b.key),
    );
  }

  /**
   * Lifts the bans and clears the failures of every key under `target` (`all`, an address, a CIDR or a listed key);
   * returns what was lifted. `caller`: the address of an API key asking, which may not lift or clear its own
   * client key (a target covering it, `all` included), or it could guess the token without end; the operator's CLI gives none.
   */
  async lift(target: string, options: { caller?: string } = {}): Promise<Result<BanEntry[], LiftRefusal>> {
    const parsed = parseBanTarget(target);
    if (!parsed) return err('invalid_target');
    if (options.caller !== undefined && banTargetMatches(parsed, keyOf(options.caller))) return err('own_ban');
    const now = this.clock.now();
    const lifted: BanEntry[] = [];
    for (const { key, record } of await this.store.attempts.listAttempts()) {
      if (!banTargetMatches(parsed, key)) continue;
      const entry = this.entryOf(key, record, now);
      await this.store.attempts.deleteAttempts(key);
      if (entry.failures > 0 || entry.bannedUntil !== null) lifted.push(entry);
    }
    return ok(lifted.sort((a, b) => a.key.localeCompare(b.key)));
  }

  /** The global budget as it stands: failures in the hour and what a new client meets now. */
  async budget(): Promise<BudgetState> {
    const now = this.clock.now();
    return budgetState(await this.store.budget.readGlobalFailures(oldestLiveBucket(now)), this.options.globalFailureBudget, now);
  }

  /** Forgets every failure in the global budget (an operator's reset); bans and per-address counts stay. Returns how many it forgot. */
  async resetBudget(): Promise<number> {
    const { failures } = await this.budget();
    await this.store.budget.clearGlobalFailures();
    return failures;
  }

  private async uncountedReason(clientIp: string, failure: { presented?: readonly string[] }): Promise<UncountedReason | null> {
    if (addressIn(this.options.exempt, clientIp)) return 'exempt';
    if (failure.presented?.length && this.retiring.size > 0) await Promise.allSettled(this.retiring);
    for (const token of failure.presented ?? [])
      if (await this.store.retiredTokens.isRetiredToken(await tokenFingerprint(token))) return 'stale_session';
    return null;
  }

  private async countFailure(key: string, cookie: string | undefined): Promise<FailureOutcome> {
    const now = this.clock.now();
    const { windowMs, threshold, banMs } = this.options;
    // Kept until the newest failure leaves the window: the window slides, older failures are dropped as it does.
    const tally = await this.store.attempts.countFailure(key, {
      at: now,
      ...(cookie === undefined ? {} : { cookie }),
      windowStart: now - windowMs,
      threshold,
      banUntil: now + banMs,
      keepUntil: now + windowMs,
    });
    return this.outcomeOf(tally, now);
  }

  private outcomeOf(tally: FailureTally, now: number): FailureOutcome {
    switch (tally.kind) {
      case 'already_banned':
        return { banned: true, retryAfterSeconds: Math.ceil((tally.bannedUntil - now) / 1000), justBanned: false };
      case 'banned':
        return { banned: true, retryAfterSeconds: Math.ceil((tally.bannedUntil - now) / 1000), justBanned: true };
      case 'repeated':
        return {
          banned: false,
          remainingAttempts: this.options.threshold - tally.failures,
          remind: false,
          counted: false,
          reason: 'repeated_cookie',
        };
      case 'counted': {
        const remainingAttempts = this.options.threshold - tally.failures;
        return { banned: false, remainingAttempts, remind: remainingAttempts <= this.options.reminderAt, counted: true };
      }
      case 'full':
        // A guess the store could not keep for its address (a flood filled the counts): it still spends the global budget.
        return { banned: false, remainingAttempts: this.options.threshold - 1, remind: false, counted: true };
    }
  }

  /**
   * A new client while the failure counts are full (a flood filled them): its failure could not be kept, so its guess is not
   * checked at all, and the refusal spends the global budget as a guess would. Never a running ban evicted to make room.
   */
  private async refuseUncountable(countsFullUntil: number): Promise<Admission> {
    const now = this.clock.now();
    if (this.options.globalFailureBudget > 0) await this.spend(now);
    return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((countsFullUntil - now) / 1000)), hold: null };
  }

  /** One guess into the global budget, in the bucket of `now`; the bucket, for a release. */
  private async spend(now: number): Promise<number> {
    const bucket = budgetBucket(now);
    await this.store.budget.addGlobalFailures(bucket, 1, bucketExpiry(bucket));
    return bucket;
  }

  private release(bucket: number): Promise<void> {
    return this.store.budget.addGlobalFailures(bucket, -1, bucketExpiry(bucket));
  }

  private entryOf(key: string, record: AttemptRecord, now: number): BanEntry {
    const banned = record.bannedUntil !== undefined && record.bannedUntil > now;
    const failures = record.failures.filter((entry) => entry.at > now - this.options.windowMs).length;
    const lastFailureAt = record.lastFailureAt ?? record.failures[record.failures.length - 1]?.at ?? null;
    return { key, failures: banned ? 0 : failures, bannedUntil: banned ? (record.bannedUntil as number) : null, lastFailureAt };
  }

  private banStatus(record: AttemptRecord | null, now: number): BanStatus {
    if (record?.bannedUntil === undefined || record.bannedUntil <= now) return { banned: false };
    return { banned: true, retryAfterSeconds: Math.ceil((record.bannedUntil - now) / 1000) };
  }
}

/** Parsable addresses are grouped (IPv6 per /64); anything else (a Unix socket) is its own key. */
function keyOf(clientIp: string): string {
  const ip = parseIp(clientIp);
  return ip ? clientKey(ip) : clientIp;
}
