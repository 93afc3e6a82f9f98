import type { VerifiedCredential } from '../domain/bans/ban-policy.js';
import type { SecurityEventVia } from '../domain/security-event.js';

/** Who is attempting a secret: the client address as the edge resolved it. */
export interface AttemptClient {
  ip: string;
}

/** Who asked for a change: a client address over the API, or a local command (no address). */
export interface Actor {
  address: string | null;
  via: SecurityEventVia;
  /** What the API caller presented: an API key may not lift its own ban (see liftBan). */
  credential?: VerifiedCredential;
}
