import type { Cidr } from '../../net/cidr.js';

/** How the ban policy counts failures and bans, and what it spares. */
export interface BanPolicyOptions {
  /** Sliding window in which failures are counted. */
  windowMs: number;
  /** Failures inside the window that start a ban. */
  threshold: number;
  banMs: number;
  /** Remaining attempts at or below which a failure carries a reminder. */
  reminderAt: number;
  /** Networks never banned (webui.ban_exempt); their failures are only logged. */
  exempt: readonly Cidr[];
  /** How long a login lasts: a client that logged in within it passes the global budget, a token retired within it is a stale session. */
  sessionLifetimeMs: number;
  /** Failed verifications per hour across all addresses before new clients are slowed down; 0 turns the budget off. */
  globalFailureBudget: number;
}

export const DEFAULT_BAN_POLICY: BanPolicyOptions = {
  windowMs: 5 * 60_000,
  threshold: 5,
  banMs: 10 * 60_000,
  reminderAt: 2,
  exempt: [],
  sessionLifetimeMs: 7 * 24 * 60 * 60_000,
  globalFailureBudget: 100,
};
