/** What a WebSocket ticket grants, and until when. */
export interface TicketGrant {
  sessionToken: string;
  expiresAt: number;
}

/** One-time WebSocket tickets; spending one is atomic, so a ticket opens one socket whichever process is asked. */
export interface TicketStore {
  /** Keeps a ticket until its grant expires; the store may drop the oldest of a session or overall when full. */
  putTicket(ticket: string, grant: TicketGrant): Promise<void>;
  /** Returns and removes the grant in one step, so a ticket is spent at most once, by whichever process asks first. */
  consumeTicket(ticket: string): Promise<TicketGrant | null>;
  /** Drops every ticket issued from this session token, by any process sharing the store. */
  revokeTickets(sessionToken: string): Promise<void>;
}
