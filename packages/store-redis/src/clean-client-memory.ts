/** How long this instance answers a clean, logged-in client's admission from memory: a ban from another instance waits this long. */
export const CLEAN_CLIENT_MEMORY_MS = 1_000;
const MAX_REMEMBERED = 10_000;

/**
 * Clients this instance read as clean (no failure, no ban) and logged in recently, for at most a second and never past their
 * login: the dashboard polls /auth/check from every open tab, and each poll would be a round trip to Redis for the same answer.
 * Anything this instance records about a client (a failure, a deleted record) forgets it at once, and a read that was in flight
 * meanwhile is not remembered (its clean answer may predate the failure); what another instance records is seen within
 * CLEAN_CLIENT_MEMORY_MS. Only an admission is answered from it, and only while Redis answers: every write still goes to Redis,
 * so a lost store still fails closed. Bounded: the oldest entry goes first.
 */
export class CleanClientMemory {
  private readonly clean = new Map<string, number>();
  // Counts forget() calls; one counter for every key keeps it a number, at the price of fewer entries while failures pour in.
  private forgets = 0;

  /** Whether `key` was read clean and logged in, and that still holds at `now`. */
  isClean(key: string, now: number): boolean {
    const until = this.clean.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.clean.delete(key);
    return false;
  }

  /** Taken before a read is sent, and given back to rememberClean with its answer. */
  mark(): number {
    return this.forgets;
  }

  /** `key` was read clean (by the read `mark` was taken for) with its login remembered until `loginUntil`. */
  rememberClean(key: string, now: number, loginUntil: number, mark: number): void {
    // Something was recorded since the read was sent: Redis may have answered it before that failure or ban.
    if (mark !== this.forgets) return;
    bounded(this.clean).set(key, Math.min(now + CLEAN_CLIENT_MEMORY_MS, loginUntil));
  }

  /** This instance records something about `key`: its next admission reads Redis, and no read sent before now is remembered. */
  forget(key: string): void {
    this.forgets += 1;
    this.clean.delete(key);
  }
}

function bounded(map: Map<string, number>): Map<string, number> {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  return map;
}
