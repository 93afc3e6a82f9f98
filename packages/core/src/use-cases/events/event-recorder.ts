import type { Logger } from '../../ports/logger.js';
import type { CredentialHow, SecurityEventSink } from '../../domain/security-event.js';
import { LoginLog } from './login-log.js';
import { auditEventOf, type OperationEvent } from './operation-event.js';

/** Where the verbs send the events they produce. */
export interface OperationEventSink {
  record(events: readonly OperationEvent[]): void;
}

const FAILURE_MESSAGE: Record<CredentialHow, string> = {
  verify: 'login failed',
  cookie: 'session cookie rejected',
  bearer: 'bearer credential rejected',
  ticket: 'WebSocket ticket rejected',
};

/**
 * The one place an operation's events become the audit trail and the log: every security event is audited
 * as it is, and each kind has its one log line (successful logins through the once-a-minute LoginLog).
 * Without a logger (the CLI on a stopped server's directory) only the audit trail is written.
 */
export class EventRecorder implements OperationEventSink {
  private readonly logins: LoginLog | null;

  constructor(
    private readonly audit: SecurityEventSink,
    private readonly logger: Logger | null = null,
    /** Monotonic milliseconds for the login log's window. */
    now: () => number = () => 0,
  ) {
    this.logins = logger === null ? null : new LoginLog(logger, now);
  }

  record(events: readonly OperationEvent[]): void {
    for (const event of events) {
      const audited = auditEventOf(event);
      if (audited !== null) this.audit.record(audited);
      if (this.logger !== null) this.log(this.logger, event);
    }
  }

  private log(logger: Logger, event: OperationEvent): void {
    const ip = event.address === null ? {} : { ip: event.address };
    // An operator's change: who (when over the API), what, and through what.
    const change = (fields: object, message: string) => logger.info({ ...ip, ...fields, via: event.via }, message);
    switch (event.event) {
      case 'login_succeeded':
        if (event.tokenSource !== undefined && event.address !== null) this.logins?.succeeded(event.address, event.tokenSource);
        return;
      case 'login_failed':
        // The failure that started a ban (none left) is told by its ban_started line.
        if (event.counted && event.remaining === 0) return;
        if (event.counted)
          logger.info(
            { ...ip, via: event.how, remaining: event.remaining, ...(event.key === undefined ? {} : { key: event.key }) },
            FAILURE_MESSAGE[event.how],
          );
        // Exempt addresses and stale sessions are not counted, but an operator still sees them.
        else logger.info({ ...ip, via: event.how, counted: false, reason: event.reason }, FAILURE_MESSAGE[event.how]);
        return;
      case 'ban_started':
        logger.warn({ ...ip, via: event.how, retryAfter: event.retry_after }, 'client banned after repeated failed verifications');
        return;
      case 'key_first_used':
        // The operator learns the key is in use, and from where.
        logger.info({ ...ip, key: event.key }, 'API key used for the first time');
        return;
      case 'ban_lifted':
        return change({ target: event.target, lifted: event.lifted }, 'bans lifted');
      case 'ban_lift_matched_nothing':
        return change({ target: event.target, lifted: [] }, 'ban lift matched nothing');
      case 'ban_lift_refused':
        // Warned: an API key trying to clear its own count is what a token-guessing script would do.
        logger.warn({ ...ip, target: event.target, via: event.via }, 'ban lift refused: an API key may not lift its own ban');
        return;
      case 'budget_reset':
        return change({ cleared: event.cleared }, 'global failure budget reset');
      case 'key_created':
        return change({ key: event.key, scope: event.scope, expiresAt: event.expires_at }, 'API key created');
      case 'key_revoked':
        return change({ key: event.key }, 'API key revoked');
      case 'token_changed':
        return change({ tokenSource: 'configured', how: event.how }, 'access token changed');
      case 'setup_completed':
        return change({}, 'first setup completed');
      case 'setup_reset':
        return change({}, 'first setup reset');
      default:
        // Events the verbs never produce (sessions_revoked, request_refused) are logged where they happen.
        return;
    }
  }
}
