import { OncePerWindow } from '../../domain/primitives/once-per-window.js';
import type { Logger } from '../../ports/logger.js';

/** One info line per client address per window; the logins in between are counted into the next line. */
export const LOGIN_LOG_WINDOW_MS = 60_000;
/** Addresses remembered at most; past it the oldest is forgotten (its next login is simply logged). */
const MAX_CLIENTS = 10_000;

/**
 * Successful logins in the log without letting a script that logs in on every call flood it: the
 * first login of an address is an info line, repeats within the window go to debug and are counted
 * into the address's next info line as `repeats`. Failures and bans are always logged in full.
 */
export class LoginLog {
  private readonly lines = new OncePerWindow<string>(LOGIN_LOG_WINDOW_MS, MAX_CLIENTS);

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  succeeded(ip: string, tokenSource: string): void {
    const repeats = this.lines.due(ip, this.now());
    if (repeats === null) {
      this.logger.debug({ ip, tokenSource }, 'login succeeded');
      return;
    }
    this.logger.info(repeats > 0 ? { ip, tokenSource, repeats } : { ip, tokenSource }, 'login succeeded');
  }
}
