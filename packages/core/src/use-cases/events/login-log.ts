import type { Logger } from '../../ports/logger.js';

/** One info line per client address per window; the logins in between are counted into the next line. */
export const LOGIN_LOG_WINDOW_MS = 60_000;
/** Addresses remembered at most; past it the oldest is forgotten (its next login is simply logged). */
const MAX_CLIENTS = 10_000;

interface ClientEntry {
  loggedAt: number;
  /** Logins since the last info line for this address. */
  unlogged: number;
}

/**
 * Successful logins in the log without letting a script that logs in on every call flood it: the
 * first login of an address is an info line, repeats within the window go to debug and are counted
 * into the address's next info line as `repeats`. Failures and bans are always logged in full.
 */
export class LoginLog {
  private readonly clients = new Map<string, ClientEntry>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  succeeded(ip: string, tokenSource: string): void {
    const now = this.now();
    const entry = this.clients.get(ip);
    if (entry && now - entry.loggedAt < LOGIN_LOG_WINDOW_MS) {
      entry.unlogged += 1;
      this.logger.debug({ ip, tokenSource }, 'login succeeded');
      return;
    }
    const repeats = entry?.unlogged ?? 0;
    this.logger.info(repeats > 0 ? { ip, tokenSource, repeats } : { ip, tokenSource }, 'login succeeded');
    // Re-inserted, so the Map's order is the order of last info lines and the first key is the oldest.
    this.clients.delete(ip);
    this.clients.set(ip, { loggedAt: now, unlogged: 0 });
    if (this.clients.size > MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value as string);
  }
}
