import type { Core } from '../create-core.js';
import type { Principal } from '../domain/credentials.js';
import type { TokenStatus } from '../domain/tokens/token-service.js';
import type { TicketRefusal } from '../domain/ws-ticket-issuer.js';
import { andThen, settled, type Awaitable } from '../ports/awaitable.js';
import type { AttemptClient } from './actor.js';
import { Attempts, type AttemptRefusal, type Pause } from './attempts.js';
import { authenticate, type AuthenticationOutcome, type CredentialVia } from './authenticate.js';
import type { OperationEventSink } from './events/event-recorder.js';
import type { Done, OperationEvent } from './events/operation-event.js';
import type { PresentedCredentials } from './presented-credentials.js';

/**
 * POST /auth/verify: refused before the compare (a ban, the budget), logged in, or a wrong token (with a reminder when few attempts are
 * left).
 */
export type LoginOutcome =
  | ({ kind: 'refused' } & AttemptRefusal)
  | { kind: 'valid'; status: TokenStatus; isFirstSetup: boolean }
  | { kind: 'banned'; retryAfterSeconds: number }
  | { kind: 'invalid'; remainingAttempts: number | null };

/** GET /auth/check: the authentication, and for a valid session the access token's status (a key's request reads it too). */
export type SessionCheckOutcome =
  Exclude<AuthenticationOutcome, { kind: 'valid' }> | { kind: 'valid'; principal: Principal; via: CredentialVia; tokenStatus: TokenStatus };

/** GET /ws-token: a ticket for a valid session, or why not. */
export type TicketIssueOutcome =
  Exclude<AuthenticationOutcome, { kind: 'valid' }> | { kind: 'issued'; ticket: string; expiresIn: number } | { kind: 'session_invalid' };

/** GET /ws?token=: the session a ticket opens and who it acts as, or why not (several tickets are one guess, none compared). */
export type TicketRedeemOutcome =
  | ({ kind: 'refused' } & AttemptRefusal)
  | { kind: 'ambiguous'; code: 'duplicate_credentials' }
  | { kind: 'missing' }
  | { kind: 'rejected'; reason: TicketRefusal }
  | { kind: 'redeemed'; sessionToken: string; principal: Principal };

const NO_EVENTS: readonly OperationEvent[] = [];

/**
 * The verbs that compare a secret a client presents, one call each: every transport (the Hono routes, the
 * session guard, Node's /auth/check fast path) calls these and maps the outcome to its answer. Each records
 * its events (failures, bans, a login, a key's first use) through `sink` and returns them with the outcome.
 */
export interface AccessOperations {
  login(secret: string, client: AttemptClient): Promise<Done<LoginOutcome>>;
  /** At once when the store answers at once (Awaitable): the login check of every guarded request. */
  authenticate(presented: PresentedCredentials, client: AttemptClient): Awaitable<Done<AuthenticationOutcome>>;
  /** At once when the store answers at once (Awaitable): GET /auth/check. */
  checkSession(presented: PresentedCredentials, client: AttemptClient): Awaitable<Done<SessionCheckOutcome>>;
  issueTicket(presented: PresentedCredentials, client: AttemptClient): Promise<Done<TicketIssueOutcome>>;
  redeemTicket(tickets: readonly string[], client: AttemptClient): Promise<Done<TicketRedeemOutcome>>;
}

export function createAccessOperations(
  core: Pick<Core, 'bans' | 'tokens' | 'credentials' | 'setup' | 'tickets'>,
  options: { sink: OperationEventSink; pause: Pause },
): AccessOperations {
  const attempts = new Attempts(core.bans, options.pause);
  const parts = { attempts, tokens: core.tokens, credentials: core.credentials };
  const done = <T>(outcome: T, events: readonly OperationEvent[]): Done<T> => {
    if (events.length === 0) return { outcome, events: NO_EVENTS };
    options.sink.record(events);
    return { outcome, events };
  };

  return {
    async login(secret, client) {
      const events: OperationEvent[] = [];
      const { admission, refusal } = await attempts.admit(client);
      // docs/decisions/0002-failed-verification-and-bans.md: while banned even the right token is refused; so it is while the global budget is spent.
      if (refusal) return done({ kind: 'refused', ...refusal }, events);
      const status = await core.tokens.statusFor(secret);
      if (status) {
        await attempts.succeeded(client, admission);
        const isFirstSetup = await core.setup.isFirstSetup();
        events.push({ event: 'login_succeeded', address: client.ip, via: 'api', how: 'verify', tokenSource: status.tokenSource });
        return done({ kind: 'valid', status, isFirstSetup }, events);
      }
      const outcome = await attempts.failed(client, admission, 'verify', events);
      if (outcome.banned) return done({ kind: 'banned', retryAfterSeconds: outcome.retryAfterSeconds }, events);
      return done({ kind: 'invalid', remainingAttempts: outcome.remind ? outcome.remainingAttempts : null }, events);
    },

    // The hot paths (every guarded request, /auth/check): answered at once when the store answers at once (Awaitable).
    authenticate(presented, client) {
      const events: OperationEvent[] = [];
      return settled(() => andThen(authenticate(parts, presented, client, events), (session) => done(session, events)));
    },

    checkSession(presented, client) {
      const events: OperationEvent[] = [];
      return settled(() =>
        andThen(authenticate(parts, presented, client, events), (session): Awaitable<Done<SessionCheckOutcome>> => {
          if (session.kind !== 'valid') return done(session, events);
          const { principal, via } = session;
          // Built field by field, not spread from the session: a spread here made /auth/check about 20 % slower (V8 took the
          // slow path for the copy, and every later read of the outcome with it; docs/performance.md).
          // The token's status came with a cookie's or the token's check; a key's request reads it.
          if (principal.kind === 'token') return done({ kind: 'valid', principal, via, tokenStatus: principal.status }, events);
          return core.tokens.status().then((tokenStatus) => done({ kind: 'valid', principal, via, tokenStatus }, events));
        }),
      );
    },

    async issueTicket(presented, client) {
      const events: OperationEvent[] = [];
      // A read-scoped key may open the WebSocket: a ticket is issued to any valid session, cookie or bearer.
      const session = await authenticate(parts, presented, client, events);
      if (session.kind !== 'valid') return done(session, events);
      const issued = await core.tickets.issue(session.principal.session);
      if (!issued.ok) return done({ kind: 'session_invalid' }, events);
      return done({ kind: 'issued', ticket: issued.value.ticket, expiresIn: issued.value.expiresIn }, events);
    },

    async redeemTicket(tickets, client) {
      const events: OperationEvent[] = [];
      if (tickets.length > 1) {
        // More than one ticket is refused with none redeemed, as one guess (presented-credentials.ts).
        const refusal = await attempts.ambiguous(client, 'ticket', events);
        return done(refusal ? { kind: 'refused', ...refusal } : { kind: 'ambiguous', code: 'duplicate_credentials' }, events);
      }
      const [ticket] = tickets;
      if (!ticket) return done({ kind: 'missing' }, events);
      // A ticket is a credential like any other: a banned address's is not even looked at, nor spent (issue 43, item 6).
      // Its ban only: a ticket is 256 random bits, nothing to guess, so it neither spends nor waits on the global budget.
      const ban = await attempts.banned(client);
      if (ban) return done({ kind: 'refused', ...ban }, events);
      const redeemed = await core.tickets.redeem(ticket);
      if (!redeemed.ok) return done({ kind: 'rejected', reason: redeemed.error }, events);
      return done({ kind: 'redeemed', sessionToken: redeemed.value.sessionToken, principal: redeemed.value.principal }, events);
    },
  };
}
