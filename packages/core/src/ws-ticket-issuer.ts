import type { Clock } from './ports/clock.js';
import type { RandomSource } from './ports/random-source.js';
import type { Store } from './ports/store.js';
import { randomBase64Url } from './random-encoding.js';
import { err, ok, type Result } from './result.js';

export const TICKET_TTL_SECONDS = 60;

export type TicketRefusal = 'unknown_ticket' | 'expired_ticket' | 'session_revoked';

/** Whether the session a ticket is asked for, or was issued from, is still valid (Credentials.isCurrent). */
export interface SessionValidity {
  isCurrent(session: string): Promise<boolean>;
}

/**
 * One-time tickets that open a WebSocket (the specification's "Temporary WebSocket token"):
 * 32 random bytes, valid 60 s, spent on first use, bound to the session they came from (the access token, or an API key).
 */
export class WsTicketIssuer {
  constructor(
    private readonly store: Pick<Store, 'tickets'>,
    private readonly sessions: SessionValidity,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  async issue(sessionToken: string): Promise<Result<{ ticket: string; expiresIn: number }, 'invalid_session'>> {
    if (!(await this.sessions.isCurrent(sessionToken))) return err('invalid_session');
    const ticket = randomBase64Url(this.random, 32);
    await this.store.tickets.putTicket(ticket, { sessionToken, expiresAt: this.clock.now() + TICKET_TTL_SECONDS * 1000 });
    return ok({ ticket, expiresIn: TICKET_TTL_SECONDS });
  }

  /** Spends a ticket; it is gone afterwards whatever the outcome, so it can never be replayed. */
  async redeem(ticket: string): Promise<Result<{ sessionToken: string }, TicketRefusal>> {
    const grant = await this.store.tickets.consumeTicket(ticket);
    if (!grant) return err('unknown_ticket');
    if (this.clock.now() >= grant.expiresAt) return err('expired_ticket');
    if (!(await this.sessions.isCurrent(grant.sessionToken))) return err('session_revoked');
    return ok({ sessionToken: grant.sessionToken });
  }
}
