import { MemoryAttempts } from './memory-attempts.js';
import { MemoryFailureBudget } from './memory-failure-budget.js';
import { MemoryRetiredTokens } from './memory-retired-tokens.js';
import { MemoryTickets } from './memory-tickets.js';
import type { Clock } from '../ports/clock.js';
import type { RecordStore } from '../ports/record-store.js';
import type { ShortLivedState, Store } from '../ports/store.js';

/** Caps that keep the short-lived state bounded whatever clients do (docs/decisions/0014-bounded-memory.md). */
export interface MemoryStoreLimits {
  /** Client keys with failures or a ban that are remembered at once. */
  maxAttemptKeys: number;
  /** Outstanding tickets overall. */
  maxTickets: number;
  /** Outstanding tickets of one session token. */
  maxTicketsPerSession: number;
  /** Client keys remembered for a recent login. */
  maxRecentSuccesses: number;
  /** Fingerprints of retired tokens remembered at once. */
  maxRetiredTokens: number;
}

export const DEFAULT_MEMORY_STORE_LIMITS: MemoryStoreLimits = {
  maxAttemptKeys: 100_000,
  maxTickets: 10_000,
  maxTicketsPerSession: 256,
  maxRecentSuccesses: 10_000,
  maxRetiredTokens: 1_000,
};

/** The short-lived state every single-process deployment keeps in memory (the JSON file's and `--memory`'s), bounded and swept. */
export class MemoryShortLivedState implements ShortLivedState {
  readonly attempts: MemoryAttempts;
  readonly budget: MemoryFailureBudget;
  readonly retiredTokens: MemoryRetiredTokens;
  readonly tickets: MemoryTickets;

  constructor(
    private readonly clock: Clock,
    limits: Partial<MemoryStoreLimits> = {},
  ) {
    const caps = { ...DEFAULT_MEMORY_STORE_LIMITS, ...limits };
    this.attempts = new MemoryAttempts(clock, caps);
    this.budget = new MemoryFailureBudget(clock);
    this.retiredTokens = new MemoryRetiredTokens(clock, caps.maxRetiredTokens);
    this.tickets = new MemoryTickets(clock, caps);
  }

  /** The Store of this state with `record` as its durable record (the JSON file's, for one). */
  storeWith(record: RecordStore): Store {
    return { record, attempts: this.attempts, budget: this.budget, retiredTokens: this.retiredTokens, tickets: this.tickets };
  }

  /** Drops expired tickets, attempt records and remembered keys; a server calls it on a timer. */
  sweep(): void {
    const now = this.clock.now();
    this.tickets.sweep(now);
    this.attempts.sweep(now);
    this.retiredTokens.sweep(now);
  }

  /** Sizes, for tests and the memory benchmark. */
  get size(): { attempts: number; tickets: number } {
    return { attempts: this.attempts.size, tickets: this.tickets.size };
  }
}
