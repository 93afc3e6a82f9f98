import type { AttemptStore } from './attempt-store.js';
import type { FailureBudgetStore } from './failure-budget-store.js';
import type { RecordStore } from './record-store.js';
import type { RetiredTokenStore } from './retired-token-store.js';
import type { TicketStore } from './ticket-store.js';

export type { ApiKeyRecord, ApiKeyScope, TokenRecord, TokenSource } from './token-record.js';
export type { RecordChangeListener, RecordChangeOrigin, RecordStore, RecordSwap } from './record-store.js';
export type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from './attempt-store.js';
export type { BudgetBucket, FailureBudgetStore } from './failure-budget-store.js';
export type { RetiredTokenStore } from './retired-token-store.js';
export type { TicketGrant, TicketStore } from './ticket-store.js';

/** The state that lives minutes to days and is never written to the data file: it changes with every request. */
export interface ShortLivedState {
  attempts: AttemptStore;
  budget: FailureBudgetStore;
  retiredTokens: RetiredTokenStore;
  tickets: TicketStore;
}

/**
 * Everything the core keeps, one small port per kind of state (docs/decisions/0016-shared-store-fails-closed.md: every atomic step is one
 * call, so several processes can share one store). An adapter gives the ports it owns; the JSON file
 * owns only `record`, its short-lived state is core's memory (`MemoryShortLivedState`).
 */
export interface Store extends ShortLivedState {
  record: RecordStore;
}

/** Thrown by a Store that cannot reach its backing service; the server answers 503 store_unavailable and keeps running. */
export class StoreUnavailableError extends Error {
  /** What the store's client reported, for the log. */
  readonly reason: unknown;

  constructor(message: string, options: { cause?: unknown } = {}) {
    // Not passed to Error itself: every runtime's lib (Deno's included) takes the one-argument form.
    super(message);
    this.name = 'StoreUnavailableError';
    this.reason = options.cause;
  }
}
