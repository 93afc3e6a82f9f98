import type { Principal } from './credentials.js';
import type { Clock } from '../ports/clock.js';
import type { RandomSource } from '../ports/random-source.js';
import type { Store } from '../ports/store.js';
import { randomBase64Url } from './primitives/random-encoding.js';
import { err, ok, type Result } from './result.js';

export const TICKET_TTL_SECONDS = 60;

export type TicketRefusal = 'unknown_ticket' | 'expired_ticket' | 'session_revoked';

/** Who a session acts as while it is valid (Credentials): the one a ticket is asked for, and the one it was issued from. */
export interface SessionValidity {
  /** null once the session is not valid. */
  principalOf(session: string): Promise<Principal | null>;
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
    if ((await this.sessions.principalOf(sessionToken)) === null) return err('invalid_session');
    const ticket = randomBase64Url(this.random, 32);
    await this.store.tickets.putTicket(ticket, { sessionToken, expiresAt: this.clock.now() + TICKET_TTL_SECONDS * 1000 });
    return ok({ ticket, expiresIn: TICKET_TTL_SECONDS });
  }

  /**
   * Spends a ticket; it is gone afterwards whatever the outcome, so it can never be replayed. The principal is the session's
   * as it is now (a key's scope as the record has it), for what the socket may subscribe to and call.
   */
  async redeem(ticket: string): Promise<Result<{ sessionToken: string; principal: Principal }, TicketRefusal>> {
    const grant = await this.store.tickets.consumeTicket(ticket);
    if (!grant) return err('unknown_ticket');
    if (this.clock.now() >= grant.expiresAt) return err('expired_ticket');
    const principal = await this.sessions.principalOf(grant.sessionToken);
    if (!principal) return err('session_revoked');
    return ok({ sessionToken: grant.sessionToken, principal });
  }
}
