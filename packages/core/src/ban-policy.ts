import { clientKey, parseIp } from './ip-address.js';
import type { Clock } from './ports/clock.js';
import type { AttemptRecord, Store } from './ports/store.js';
import { SerialQueue } from './serial-queue.js';

export interface BanPolicyOptions {
  /** Sliding window in which failures are counted. */
  windowMs: number;
  /** Failures inside the window that start a ban. */
  threshold: number;
  banMs: number;
  /** Remaining attempts at or below which a failure carries a reminder. */
  reminderAt: number;
}

export const DEFAULT_BAN_POLICY: BanPolicyOptions = {
  windowMs: 5 * 60_000,
  threshold: 5,
  banMs: 10 * 60_000,
  reminderAt: 2,
};

export type BanStatus = { banned: false } | { banned: true; retryAfterSeconds: number };

export type FailureOutcome =
  | { banned: true; retryAfterSeconds: number; justBanned: boolean }
  | { banned: false; remainingAttempts: number; remind: boolean; counted: boolean };

/**
 * Brute-force protection per client (the specification's "Client IP ban" table; a ban refuses even the right token, wrong cookies count: DESIGN D2-D4).
 * Clients are keyed by IPv4 address or IPv6 /64, so one host cannot rotate through its prefix.
 */
export class BanPolicy {
  private readonly options: BanPolicyOptions;
  // Read-modify-write of attempt records runs one at a time, so concurrent guesses cannot overwrite each other's count.
  private readonly queue = new SerialQueue();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: Partial<BanPolicyOptions> = {},
  ) {
    this.options = { ...DEFAULT_BAN_POLICY, ...options };
  }

  async status(clientIp: string): Promise<BanStatus> {
    const record = await this.store.readAttempts(keyOf(clientIp));
    return this.banStatus(record, this.clock.now());
  }

  /**
   * Counts a failed verification. A wrong cookie value is counted once per window, so a stale
   * cookie polled every second does not ban its owner while every distinct guess still counts.
   */
  recordFailure(clientIp: string, failure: { cookie?: string } = {}): Promise<FailureOutcome> {
    return this.queue.run(() => this.countFailure(clientIp, failure));
  }

  private async countFailure(clientIp: string, failure: { cookie?: string }): Promise<FailureOutcome> {
    const key = keyOf(clientIp);
    const now = this.clock.now();
    const record = (await this.store.readAttempts(key)) ?? { failures: [] };
    const ban = this.banStatus(record, now);
    if (ban.banned) return { ...ban, justBanned: false };

    const failures = record.failures.filter((entry) => entry.at > now - this.options.windowMs);
    const repeated = failure.cookie !== undefined && failures.some((entry) => entry.cookie === failure.cookie);
    if (!repeated) failures.push(failure.cookie === undefined ? { at: now } : { at: now, cookie: failure.cookie });

    if (failures.length >= this.options.threshold) {
      const bannedUntil = now + this.options.banMs;
      await this.store.writeAttempts(key, { failures: [], bannedUntil }, bannedUntil);
      return { banned: true, retryAfterSeconds: Math.ceil(this.options.banMs / 1000), justBanned: true };
    }
    // Kept until the newest failure leaves the window: the window slides, older failures are filtered above.
    const newest = failures[failures.length - 1]?.at ?? now;
    await this.store.writeAttempts(key, { failures }, newest + this.options.windowMs);
    const remainingAttempts = this.options.threshold - failures.length;
    return { banned: false, remainingAttempts, remind: remainingAttempts <= this.options.reminderAt, counted: !repeated };
  }

  /** A successful verification clears the count; a running ban ends only when its time is up. */
  async recordSuccess(clientIp: string): Promise<void> {
    const key = keyOf(clientIp);
    // Most logins come from clients with no failure on record: nothing to clear, no need to queue.
    if ((await this.store.readAttempts(key)) === null) return;
    return this.queue.run(async () => {
      if (!this.banStatus(await this.store.readAttempts(key), this.clock.now()).banned) await this.store.deleteAttempts(key);
    });
  }

  private banStatus(record: AttemptRecord | null, now: number): BanStatus {
    if (record?.bannedUntil === undefined || record.bannedUntil <= now) return { banned: false };
    return { banned: true, retryAfterSeconds: Math.ceil((record.bannedUntil - now) / 1000) };
  }
}

/** Parsable addresses are grouped (IPv6 per /64); anything else (a Unix socket) is its own key. */
function keyOf(clientIp: string): string {
  const ip = parseIp(clientIp);
  return ip ? clientKey(ip) : clientIp;
}
