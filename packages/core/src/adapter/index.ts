/**
 * For authors of Store adapters: the port types below the `Store` of `@webui/core` (the record and the four
 * short-lived kinds of state, each step documented as one atomic call) and the plumbing the file and Redis stores
 * are built from (serialised writes, change listeners, record copies, what a thrown error says). An application
 * using the core needs none of it.
 */
export type { Awaitable } from '../ports/awaitable.js';
export type { ApiKeyRecord, TokenRecord } from '../ports/token-record.js';
export type { RecordChangeListener, RecordChangeOrigin, RecordStore, RecordSwap } from '../ports/record-store.js';
export type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from '../ports/attempt-store.js';
export type { BudgetBucket, FailureBudgetStore } from '../ports/failure-budget-store.js';
export type { RetiredTokenStore } from '../ports/retired-token-store.js';
export type { TicketGrant, TicketStore } from '../ports/ticket-store.js';
export { ok, err, type Result } from '../domain/result.js';
export { SerialQueue } from './serial-queue.js';
export { RecordChangeListeners } from './record-change-listeners.js';
export { sameTokenRecord } from './same-token-record.js';
export { copyTokenRecord } from './token-record-copy.js';
export { errorMessage, errorCode } from './thrown-error.js';
