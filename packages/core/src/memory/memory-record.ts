import type { Awaitable } from '../ports/awaitable.js';
import type { RecordChangeListener, RecordStore, RecordSwap } from '../ports/record-store.js';
import type { TokenRecord } from '../ports/token-record.js';
import { RecordChangeListeners } from '../adapter/record-change-listeners.js';
import { sameTokenRecord } from '../adapter/same-token-record.js';
import { copyTokenRecord } from '../adapter/token-record-copy.js';

/** The durable record held in memory: for tests and `--memory` quick starts, gone when the process stops. */
export class MemoryRecord implements RecordStore {
  private record: TokenRecord | null;
  private readonly listeners = new RecordChangeListeners();

  constructor(
    record: TokenRecord | null = null,
    private readonly onListenerError: (error: unknown) => void = () => undefined,
  ) {
    this.record = record ? copyTokenRecord(record) : null;
  }

  readRecord(): Awaitable<TokenRecord | null> {
    return this.record ? copyTokenRecord(this.record) : null;
  }

  async swapRecord(expected: TokenRecord | null, next: TokenRecord): Promise<RecordSwap> {
    if (!sameTokenRecord(this.record, expected)) return { swapped: false, current: this.record ? copyTokenRecord(this.record) : null };
    const previous = this.record;
    this.record = copyTokenRecord(next);
    this.listeners.notify(this.record, previous, this.onListenerError);
    return { swapped: true };
  }

  onRecordChanged(listener: RecordChangeListener): () => void {
    return this.listeners.add(listener);
  }
}
