import type { Clock } from '../ports/clock.js';
import type { TicketGrant, TicketStore } from '../ports/ticket-store.js';

/** WebSocket tickets in memory, indexed by session so a session's tickets can be dropped together. */
export class MemoryTickets implements TicketStore {
  private readonly tickets = new Map<string, TicketGrant>();
  private readonly bySession = new Map<string, Set<string>>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: { maxTickets: number; maxTicketsPerSession: number },
  ) {}

  async putTicket(ticket: string, grant: TicketGrant): Promise<void> {
    const sessionTickets = this.bySession.get(grant.sessionToken);
    if (sessionTickets && sessionTickets.size >= this.limits.maxTicketsPerSession)
      this.drop(sessionTickets.values().next().value as string);
    if (this.tickets.size >= this.limits.maxTickets) {
      this.sweep(this.clock.now());
      if (this.tickets.size >= this.limits.maxTickets) this.drop(this.tickets.keys().next().value as string);
    }
    this.tickets.set(ticket, { ...grant });
    // The set may have been emptied and removed by the drops above.
    const current = this.bySession.get(grant.sessionToken) ?? new Set<string>();
    current.add(ticket);
    this.bySession.set(grant.sessionToken, current);
  }

  async consumeTicket(ticket: string): Promise<TicketGrant | null> {
    const grant = this.tickets.get(ticket);
    if (!grant) return null;
    this.drop(ticket);
    return grant;
  }

  async revokeTickets(sessionToken: string): Promise<void> {
    for (const ticket of [...(this.bySession.get(sessionToken) ?? [])]) this.drop(ticket);
  }

  /** Drops the tickets expired at `now`. */
  sweep(now: number): void {
    for (const [ticket, grant] of this.tickets) if (grant.expiresAt <= now) this.drop(ticket);
  }

  get size(): number {
    return this.tickets.size;
  }

  private drop(ticket: string): void {
    const grant = this.tickets.get(ticket);
    if (!grant) return;
    this.tickets.delete(ticket);
    const sessionTickets = this.bySession.get(grant.sessionToken);
    sessionTickets?.delete(ticket);
    if (sessionTickets?.size === 0) this.bySession.delete(grant.sessionToken);
  }
}
