import type { SecurityEvent, SecurityEventVia } from '../../domain/security-event.js';
import type { TokenSource } from '../../ports/store.js';

type LoginSucceeded = Extract<SecurityEvent, { event: 'login_succeeded' }>;

/** What only the log tells (no security event): a lift that matched nothing, or that an API key tried to lift its own ban. */
export type OperationNotice = { address: string | null; via: SecurityEventVia; target: string } & (
  { event: 'ban_lift_matched_nothing' } | { event: 'ban_lift_refused' }
);

/**
 * What an operation did, as the verbs report it: the security events an operator audits (a login also names
 * the token's source, for the log only) and the notices only the log shows. EventRecorder turns them into both.
 */
export type OperationEvent = Exclude<SecurityEvent, LoginSucceeded> | (LoginSucceeded & { tokenSource?: TokenSource }) | OperationNotice;

/** An operation's outcome and the events it produced (already recorded by the verbs' recorder). */
export interface Done<T> {
  outcome: T;
  events: readonly OperationEvent[];
}

/** The security event an operation event is audited as, or null for a notice. */
export function auditEventOf(event: OperationEvent): SecurityEvent | null {
  switch (event.event) {
    case 'ban_lift_matched_nothing':
    case 'ban_lift_refused':
      return null;
    case 'login_succeeded': {
      // Field by field, not a rest copy: on the login's hot path V8 takes a slow copy for that (docs/performance.md).
      const audited: LoginSucceeded = { event: event.event, address: event.address, via: event.via, how: event.how };
      if (event.key !== undefined) audited.key = event.key;
      return audited;
    }
    default:
      return event;
  }
}
