import { createHash } from 'node:crypto';

/** The names of every key and channel the store uses, all under one prefix so several deployments can share a Redis. */
export class KeySpace {
  readonly record: string;
  readonly recordChanged: string;
  readonly attemptPrefix: string;
  readonly attemptIndex: string;
  readonly globalFailures: string;
  readonly recentSuccesses: string;
  readonly retiredTokens: string;
  readonly ticketPrefix: string;
  readonly ticketIndex: string;
  readonly sessionTicketsPrefix: string;
  readonly ticketSequence: string;
  readonly instances: string;
  readonly instanceStarts: string;

  constructor(readonly prefix: string) {
    this.record = `${prefix}record`;
    this.recordChanged = `${prefix}record-changed`;
    this.attemptPrefix = `${prefix}attempt:`;
    this.attemptIndex = `${prefix}attempts`;
    this.globalFailures = `${prefix}global-failures`;
    this.recentSuccesses = `${prefix}recent-successes`;
    this.retiredTokens = `${prefix}retired-tokens`;
    this.ticketPrefix = `${prefix}ticket:`;
    this.ticketIndex = `${prefix}tickets`;
    this.sessionTicketsPrefix = `${prefix}session-tickets:`;
    this.ticketSequence = `${prefix}ticket-sequence`;
    this.instances = `${prefix}instances`;
    this.instanceStarts = `${prefix}instance-started`;
  }

  attempt(clientKey: string): string {
    return `${this.attemptPrefix}${clientKey}`;
  }

  ticket(ticket: string): string {
    return `${this.ticketPrefix}${ticket}`;
  }

  /** A session token is the access token itself: its index is named by its SHA-256, never by the token. */
  sessionTickets(sessionToken: string): string {
    return `${this.sessionTicketsPrefix}${sessionTokenHash(sessionToken)}`;
  }
}

export function sessionTokenHash(sessionToken: string): string {
  return createHash('sha256').update(sessionToken).digest('hex');
}
