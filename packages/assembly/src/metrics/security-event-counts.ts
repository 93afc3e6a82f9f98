import type { CredentialHow, SecurityEvent, SecurityEventSink } from '@webui/core';

export const LOGIN_OUTCOMES = ['succeeded', 'failed', 'failed_not_counted'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];
export const CREDENTIAL_HOWS: readonly CredentialHow[] = ['verify', 'cookie', 'bearer', 'ticket'];

type PerHow = Record<CredentialHow, number>;
const perHow = (): PerHow => ({ verify: 0, cookie: 0, bearer: 0, ticket: 0 });

/**
 * Logins, failures and bans counted from the security events, as plain numbers: recording one is an increment, nothing
 * allocated; the metrics read them at a scrape. No address, key name or secret is kept.
 */
export class SecurityEventCounts implements SecurityEventSink {
  readonly logins: Record<LoginOutcome, PerHow> = { succeeded: perHow(), failed: perHow(), failed_not_counted: perHow() };
  readonly bansStarted: PerHow = perHow();

  record(event: SecurityEvent): void {
    switch (event.event) {
      case 'login_succeeded':
        this.logins.succeeded[event.how]++;
        return;
      case 'login_failed':
        (event.counted ? this.logins.failed : this.logins.failed_not_counted)[event.how]++;
        return;
      case 'ban_started':
        this.bansStarted[event.how]++;
        return;
    }
  }
}
