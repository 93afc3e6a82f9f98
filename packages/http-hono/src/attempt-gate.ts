import type { Admission, CredentialHow, FailureOutcome, SecurityEventSink, VerifiedCredential } from '@webui/core';
import type { AppLogger, WebuiServices } from './app-env.js';

/** Who is attempting: the client address as the edge resolved it. */
export interface AttemptClient {
  ip: string;
}

/** An attempt refused before its secret was compared: a ban of the address, or the server-wide budget spent. */
export interface AttemptRefusal {
  retryAfterSeconds: number;
  scope: 'address' | 'server';
}

const FAILURE_MESSAGE: Record<CredentialHow, string> = { verify: 'login failed', cookie: 'session cookie rejected', bearer: 'bearer credential rejected', ticket: 'WebSocket ticket rejected' };

/**
 * Every attempt at a secret (a login, a session cookie) passes here: admission first (bans, the global
 * budget and its delay), then the outcome is recorded and logged. Both the cookie check and /auth/verify
 * use it, so what counts and what is logged is decided once.
 */
export class AttemptGate {
  constructor(
    private readonly services: WebuiServices,
    private readonly logger: AppLogger,
    private readonly audit: SecurityEventSink,
  ) {}

  /**
   * Admits an attempt, waiting out a budget delay; a refusal is answered 429 without comparing anything.
   * `secret`: a bearer, known before it is checked (a live API key passes the global budget).
   */
  async admit(client: AttemptClient, secret?: string): Promise<{ admission: Admission; refusal: AttemptRefusal | null }> {
    const admission = await this.services.bans.admit(client.ip, secret === undefined ? {} : { secret });
    switch (admission.kind) {
      case 'banned':
        return { admission, refusal: { retryAfterSeconds: admission.retryAfterSeconds, scope: 'address' } };
      case 'throttled':
        return { admission, refusal: { retryAfterSeconds: admission.retryAfterSeconds, scope: 'server' } };
      case 'delayed':
        await new Promise((resolve) => setTimeout(resolve, admission.delayMs));
        return { admission, refusal: null };
      default:
        return { admission, refusal: null };
    }
  }

  /** `credential`: what was verified; an API key is no login of the access token (BanPolicy.recordSuccess). */
  succeeded(client: AttemptClient, admission: Admission, credential: VerifiedCredential = 'token'): Promise<void> {
    return this.services.bans.recordSuccess(client.ip, admission, { credential });
  }

  /**
   * Records a failure, logs it (a ban at warn, a counted failure at info) and audits it. `presented`: the wrong value, counted once per window (DESIGN D4); `expiredKey`:
   * the name of the expired key it was.
   */
  async failed(client: AttemptClient, admission: Admission, how: CredentialHow, presented?: { raw: string; tokens: readonly string[] }, expiredKey?: string): Promise<FailureOutcome> {
    const outcome = await this.services.bans.recordFailure(client.ip, {
      hold: admission.hold,
      ...(presented ? { cookie: presented.raw, presented: presented.tokens } : {}),
    });
    const message = FAILURE_MESSAGE[how];
    const key = expiredKey === undefined ? {} : { key: expiredKey };
    const failure = { event: 'login_failed', address: client.ip, via: 'api', how, ...key } as const;
    if (outcome.banned) {
      if (outcome.justBanned) {
        this.logger.warn({ ip: client.ip, via: how, retryAfter: outcome.retryAfterSeconds }, 'client banned after repeated failed verifications');
        this.audit.record({ ...failure, counted: true, remaining: 0, ...(expiredKey === undefined ? {} : { reason: 'expired_key' as const }) });
        this.audit.record({ event: 'ban_started', address: client.ip, via: 'api', how, retry_after: outcome.retryAfterSeconds });
      }
    } else if (outcome.counted) {
      this.logger.info({ ip: client.ip, via: how, remaining: outcome.remainingAttempts, ...key }, message);
      this.audit.record({ ...failure, counted: true, remaining: outcome.remainingAttempts, ...(expiredKey === undefined ? {} : { reason: 'expired_key' as const }) });
    } else if (outcome.reason !== 'repeated_cookie') {
      // Exempt addresses and stale sessions are not counted, but an operator still sees them.
      this.logger.info({ ip: client.ip, via: how, counted: false, reason: outcome.reason }, message);
      this.audit.record({ ...failure, counted: false, reason: outcome.reason });
    }
    return outcome;
  }

  /** A key's first request ever: the operator learns the key is in use, and from where. */
  keyFirstUsed(client: AttemptClient, name: string): void {
    this.logger.info({ ip: client.ip, key: name }, 'API key used for the first time');
    this.audit.record({ event: 'key_first_used', address: client.ip, via: 'api', key: name });
  }
}
