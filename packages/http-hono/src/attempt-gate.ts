import type { Admission, FailureOutcome } from '@webui/core';
import type { AppLogger, WebuiServices } from './app-env.js';
import type { ResolvedClient } from './client-ip.js';

/** Who is attempting: the client address, and whether it is really the client's (see ResolvedClient). */
export type AttemptClient = Pick<ResolvedClient, 'ip' | 'attributable'>;

/** An attempt refused before its secret was compared: a ban of the address, or the server-wide budget spent. */
export interface AttemptRefusal {
  retryAfterSeconds: number;
  scope: 'address' | 'server';
}

// One notice per proxy per minute: a misconfigured proxy sends every request without the header.
const UNATTRIBUTED_NOTICE_MS = 60_000;
const MAX_NOTICED_PROXIES = 1_000;

/**
 * Every attempt at a secret (a login, a session cookie) passes here: admission first (bans, the global
 * budget and its delay), then the outcome is recorded and logged. Both the cookie check and /auth/verify
 * use it, so what counts and what is logged is decided once.
 */
export class AttemptGate {
  private readonly unattributedNoticeAt = new Map<string, number>();

  constructor(
    private readonly services: WebuiServices,
    private readonly logger: AppLogger,
    private readonly now: () => number,
  ) {}

  /** Admits an attempt, waiting out a budget delay; a refusal is answered 429 without comparing anything. */
  async admit(client: AttemptClient): Promise<{ admission: Admission; refusal: AttemptRefusal | null }> {
    const admission = await this.services.bans.admit(client.ip, { attributable: client.attributable });
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

  succeeded(client: AttemptClient, admission: Admission): Promise<void> {
    return this.services.bans.recordSuccess(client.ip, admission, { attributable: client.attributable });
  }

  /** Records a failure and logs it: a ban at warn, a counted failure at info, an unattributed one once a minute per proxy. */
  async failed(client: AttemptClient, admission: Admission, via: 'verify' | 'cookie', cookie?: { raw: string; tokens: readonly string[] }): Promise<FailureOutcome> {
    const outcome = await this.services.bans.recordFailure(client.ip, {
      attributable: client.attributable,
      hold: admission.hold,
      ...(cookie ? { cookie: cookie.raw, presented: cookie.tokens } : {}),
    });
    if (outcome.banned) {
      if (outcome.justBanned) this.logger.warn({ ip: client.ip, via, retryAfter: outcome.retryAfterSeconds }, 'client banned after repeated failed verifications');
    } else if (outcome.counted) {
      this.logger.info({ ip: client.ip, via, remaining: outcome.remainingAttempts }, via === 'verify' ? 'login failed' : 'session cookie rejected');
    } else if (outcome.reason === 'unattributed') {
      this.noticeUnattributed(client.ip);
    } else if (outcome.reason !== 'repeated_cookie') {
      // Exempt addresses and stale sessions are not counted, but an operator still sees them.
      this.logger.info({ ip: client.ip, via, counted: false, reason: outcome.reason }, via === 'verify' ? 'login failed' : 'session cookie rejected');
    }
    return outcome;
  }

  private noticeUnattributed(proxyIp: string): void {
    const now = this.now();
    const last = this.unattributedNoticeAt.get(proxyIp);
    if (last !== undefined && now - last < UNATTRIBUTED_NOTICE_MS) return;
    this.unattributedNoticeAt.delete(proxyIp);
    this.unattributedNoticeAt.set(proxyIp, now);
    if (this.unattributedNoticeAt.size > MAX_NOTICED_PROXIES) this.unattributedNoticeAt.delete(this.unattributedNoticeAt.keys().next().value as string);
    this.logger.warn(
      { ip: proxyIp, counted: false },
      'a failed attempt came from a trusted proxy without a usable X-Forwarded-For; it is not counted against the proxy (make the proxy send X-Forwarded-For)',
    );
  }
}
