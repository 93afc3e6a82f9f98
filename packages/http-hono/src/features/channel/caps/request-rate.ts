/** How fast one socket may subscribe and unsubscribe: a token bucket, and how far past it a socket may go before it is closed. */
export interface RequestRateLimits {
  /** Requests taken at once, from a full bucket. */
  burst: number;
  /** Requests a second the bucket refills with. */
  perSecond: number;
  /** Requests refused in a row (net of the refill) after which the socket is closed: it keeps going far past the rate. */
  overdraft: number;
}

/** A dashboard subscribes to a handful of topics on open (twice on a reconnect); each subscribe builds a snapshot. */
export const SUBSCRIBE_RATE: RequestRateLimits = { burst: 16, perSecond: 4, overdraft: 32 };

/** `refused`: answered rate_limited; `flooding`: the overdraft is spent, the socket is closed. */
export type Admission = 'admitted' | 'refused' | 'flooding';

/** One socket's bucket; a refused request still takes a token, so only a client that waits gets them back. */
export class RequestRate {
  private tokens: number;
  private at: number;

  constructor(
    private readonly limits: RequestRateLimits,
    private readonly now: () => number,
  ) {
    this.tokens = limits.burst;
    this.at = now();
  }

  take(): Admission {
    const now = this.now();
    // A clock stepped back refills nothing.
    const refill = (Math.max(0, now - this.at) * this.limits.perSecond) / 1000;
    this.at = now;
    this.tokens = Math.min(this.limits.burst, this.tokens + refill) - 1;
    if (this.tokens >= 0) return 'admitted';
    return this.tokens <= -this.limits.overdraft ? 'flooding' : 'refused';
  }
}
