import { randomBytes } from 'node:crypto';

/** How long a ticket from `ws-token` opens the channel, as the original's `expires_in`. */
export const TICKET_LIFETIME_SECONDS = 60;

/**
 * The upstream's one-time channel tickets: each opens one handshake within its lifetime, and only while the session
 * cookie it was issued for is still good (the original checks the session again at the handshake).
 */
export class Tickets {
  private readonly issued = new Map<string, { expiresAt: number; session: string }>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(session: string): string {
    this.dropExpired();
    // 32 random bytes in URL-safe base64 without padding, as the original's tickets (43 characters).
    const ticket = randomBytes(32).toString('base64url');
    this.issued.set(ticket, { expiresAt: this.now() + TICKET_LIFETIME_SECONDS * 1000, session });
    return ticket;
  }

  /** True once for a ticket that is unexpired and whose session `sessionValid` still accepts; the ticket is spent either way. */
  consume(ticket: string, sessionValid: (session: string) => boolean): boolean {
    this.dropExpired();
    const entry = this.issued.get(ticket);
    if (!entry) return false;
    this.issued.delete(ticket);
    return sessionValid(entry.session);
  }

  /** Tickets issued and not yet spent or expired. */
  get outstanding(): number {
    this.dropExpired();
    return this.issued.size;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [ticket, entry] of this.issued) if (now > entry.expiresAt) this.issued.delete(ticket);
  }
}
