import type { Awaitable } from './awaitable.js';
import type { TokenRecord } from './token-record.js';

/**
 * Who made a change: this process through the store; another instance sharing the store (it records
 * the change in its own audit trail); or anyone else (another process, a hand edit of the file).
 */
export type RecordChangeOrigin = 'this_process' | 'another_instance' | 'elsewhere';

/** Told the new record and the one it replaced, whoever changed it: this process, another one, a hand edit. */
export type RecordChangeListener = (record: TokenRecord | null, previous: TokenRecord | null, origin: RecordChangeOrigin) => void;

/** The outcome of a compare-and-set of the durable record: on a lost race, the record that won. */
export type RecordSwap = { swapped: true } | { swapped: false; current: TokenRecord | null };

/** The durable record (the token, setup, API keys): read it, replace it by compare-and-set, hear of its changes. */
export interface RecordStore {
  /**
   * The record, or null when none was ever written; a shared store may answer from the last record it heard of. A store
   * holding it in memory answers at once (Awaitable).
   */
  readRecord(): Awaitable<TokenRecord | null>;
  /**
   * Replaces the record with `next` if it is still `expected` (compared by value), atomically: a reader
   * sees the old or the new one, never a mix, and two concurrent swaps from one record cannot both win.
   */
  swapRecord(expected: TokenRecord | null, next: TokenRecord): Promise<RecordSwap>;
  /**
   * Subscribes to changes of the record, whoever made them, once the change is in force; returns the
   * unsubscribe. A listener that throws never undoes the change.
   */
  onRecordChanged(listener: RecordChangeListener): () => void;
}
