import type { Admission, BanPolicy, FailureOutcome, VerifiedCredential } from '../domain/bans/ban-policy.js';
import type { CredentialHow } from '../domain/security-event.js';
import { andThen, type Awaitable } from '../ports/awaitable.js';
import type { AttemptClient } from './actor.js';
import type { OperationEvent } from './events/operation-event.js';

const NO_SECRET = {};

/** An attempt refused before its secret was compared: a ban of the address, or the server-wide budget spent. */
export interface AttemptRefusal {
  retryAfterSeconds: number;
  scope: 'address' | 'server';
}

/** Waits out the global budget's delay (setTimeout in a host; the core keeps no timers of its own). */
export type Pause = (ms: number) => Promise<void>;

/** A wrong value as presented: counted once per window (docs/decisions/0004-guessing-through-the-cookie.md); `tokens` are what it may stand for (a stale session). */
export interface PresentedValue {
  raw: string;
  tokens: readonly string[];
}

/**
 * Every attempt at a secret (a login, a cookie, a bearer, a ticket) passes here: admission first (bans, the
 * global budget and its delay), then the outcome is recorded and reported as events. Every verb that
 * compares a secret uses it, so what counts and what is reported is decided once.
 */
export class Attempts {
  constructor(
    private readonly bans: Pick<BanPolicy, 'admit' | 'status' | 'recordFailure' | 'recordSuccess'>,
    private readonly pause: Pause,
  ) {}

  /** The address's ban alone, as a refusal: for a credential with nothing to guess (a ticket), which no budget meters. */
  async banned(client: AttemptClient): Promise<AttemptRefusal | null> {
    const ban = await this.bans.status(client.ip);
    return ban.banned ? { retryAfterSeconds: ban.retryAfterSeconds, scope: 'address' } : null;
  }

  /**
   * Admits an attempt, waiting out a budget delay; a refusal is answered without comparing anything.
   * `secret`: a bearer, known before it is checked (a live API key passes the global budget). At once when the admission is
   * (BanPolicy.admit).
   */
  admit(client: AttemptClient, secret?: string): Awaitable<{ admission: Admission; refusal: AttemptRefusal | null }> {
    return andThen(this.bans.admit(client.ip, secret === undefined ? NO_SECRET : { secret }), (admission) => {
      switch (admission.kind) {
        case 'banned':
          return { admission, refusal: { retryAfterSeconds: admission.retryAfterSeconds, scope: 'address' } };
        case 'throttled':
          return { admission, refusal: { retryAfterSeconds: admission.retryAfterSeconds, scope: 'server' } };
        case 'delayed':
          return this.pause(admission.delayMs).then(() => ({ admission, refusal: null }));
        default:
          return { admission, refusal: null };
      }
    });
  }

  /** `credential`: what was verified; an API key is no login of the access token (BanPolicy.recordSuccess). */
  succeeded(client: AttemptClient, admission: Admission, credential: VerifiedCredential = 'token'): Promise<void> {
    return this.bans.recordSuccess(client.ip, admission, { credential });
  }

  /**
   * Records a failure and adds its events to `events`: a counted failure, the failure that bans and the ban,
   * or an uncounted one (exempt, stale session; a repeated cookie is not reported). `expiredKey`: the name of
   * the expired key the value was.
   */
  async failed(
    client: AttemptClient,
    admission: Admission,
    how: CredentialHow,
    events: OperationEvent[],
    presented?: PresentedValue,
    expiredKey?: string,
  ): Promise<FailureOutcome> {
    const outcome = await this.bans.recordFailure(client.ip, {
      hold: admission.hold,
      ...(presented ? { cookie: presented.raw, presented: presented.tokens } : {}),
    });
    const failure = {
      event: 'login_failed',
      address: client.ip,
      via: 'api',
      how,
      ...(expiredKey === undefined ? {} : { key: expiredKey }),
    } as const;
    const expired = expiredKey === undefined ? {} : { reason: 'expired_key' as const };
    if (outcome.banned) {
      if (outcome.justBanned) {
        events.push({ ...failure, counted: true, remaining: 0, ...expired });
        events.push({ event: 'ban_started', address: client.ip, via: 'api', how, retry_after: outcome.retryAfterSeconds });
      }
    } else if (outcome.counted) {
      events.push({ ...failure, counted: true, remaining: outcome.remainingAttempts, ...expired });
    } else if (outcome.reason !== 'repeated_cookie') {
      events.push({ ...failure, counted: false, reason: outcome.reason });
    }
    return outcome;
  }

  /**
   * Counts an attempt that presented more than one credential as one failed attempt without comparing any of
   * them, so that many values in one request are one guess, not many (and not a way around the ban). A client
   * already banned, or held back by the global budget, gets that refusal first; so does the attempt that bans.
   */
  async ambiguous(client: AttemptClient, how: CredentialHow, events: OperationEvent[]): Promise<AttemptRefusal | null> {
    const { admission, refusal } = await this.admit(client);
    if (refusal) return refusal;
    const outcome = await this.failed(client, admission, how, events);
    return outcome.banned ? { retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' } : null;
  }
}
