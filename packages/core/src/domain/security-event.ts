/**
 * The security events an operator audits (data/audit.log, the `security` WebSocket domain). Each carries
 * who acted (`address`, null for local actions) and through what (`via`); never a token, key, cookie or ticket.
 */
export type SecurityEventVia = 'api' | 'cli' | 'hand_edit' | 'startup';

/** How a secret was presented: the login form (/auth/verify), the session cookie, an Authorization bearer, or a WebSocket ticket. */
export type CredentialHow = 'verify' | 'cookie' | 'bearer' | 'ticket';

interface EventBase {
  /** The client's own address as the edge resolved it (IPv6 compressed, never grouped by /64), or null for a local action. */
  address: string | null;
  via: SecurityEventVia;
}

export type SecurityEvent = EventBase &
  (
    | { event: 'login_succeeded'; how: CredentialHow; key?: string }
    | {
        event: 'login_failed';
        how: CredentialHow;
        /** The key's name, when the presented key exists but is expired. */
        key?: string;
        /** Whether it counted toward a ban: fail2ban must only count what the server counts. */
        counted: boolean;
        /** Why it did not count (repeated_cookie is never logged), or that the key presented has expired. */
        reason?: 'stale_session' | 'exempt' | 'expired_key';
        remaining?: number;
      }
    | { event: 'ban_started'; how: CredentialHow; retry_after: number }
    | { event: 'ban_lifted'; target: string; lifted: string[] }
    /** The operator emptied the global failure budget; `cleared`: the failures it held. */
    | { event: 'budget_reset'; cleared: number }
    | { event: 'token_changed'; how: 'update' | 'regenerate' | 'temporary' | 'secret_key_changed' | 'hand_edit' }
    | { event: 'sessions_revoked'; reason: 'secret_key_changed' }
    | { event: 'key_created'; key: string; scope: 'read' | 'admin'; expires_at: string | null }
    | { event: 'key_revoked'; key: string }
    | { event: 'key_first_used'; key: string }
    | { event: 'setup_completed' }
    | { event: 'setup_reset' }
    | { event: 'request_refused'; reason: 'origin_not_allowed' | 'host_not_allowed' | 'cross_site_request'; count: number }
    /** A state change forwarded to the upstream (webui.upstream): who, what, the answer; no query string (it may carry secrets). */
    | { event: 'upstream_request'; principal: string; method: string; path: string; status: number }
    /** What a bot's mounted route recorded (RouteRequest.audit): who (`session`, `key:<name>`, `anonymous` on a public route), where, what. */
    | {
        event: 'bot_action';
        principal: string;
        method: string;
        path: string;
        action: string;
        details?: Record<string, string | number | boolean | null>;
      }
  );

export type SecurityEventName = SecurityEvent['event'];

/** Every event name, for readers that filter (`webui audit --event`). */
export const SECURITY_EVENT_NAMES: readonly SecurityEventName[] = [
  'login_succeeded',
  'login_failed',
  'ban_started',
  'ban_lifted',
  'budget_reset',
  'token_changed',
  'sessions_revoked',
  'key_created',
  'key_revoked',
  'key_first_used',
  'setup_completed',
  'setup_reset',
  'request_refused',
  'upstream_request',
  'bot_action',
];

/** An event as written: its time (ISO 8601) first, so every line starts the same way. */
export type AuditLine = { time: string } & SecurityEvent;

/** Where security events go; recording never throws and never waits. */
export interface SecurityEventSink {
  record(event: SecurityEvent): void;
  /**
   * For a sink that writes recorded events later, together (a group commit): resolves once every event
   * recorded so far is written, null when none waits. A server answers after it, so no answer runs ahead of its record.
   */
  written?(): Promise<void> | null;
}

/** The line for `event` at `now`: time, event, address and via first, in that order, so a fail2ban filter can rely on it. */
export function auditLine(event: SecurityEvent, now: number): AuditLine {
  // The four leading keys keep their places when assign copies the event's values over them.
  return Object.assign(
    { time: new Date(now).toISOString(), event: event.event, address: event.address, via: event.via },
    event,
  ) as AuditLine;
}
