import type { RecordChangeListener, RecordChangeOrigin, TokenRecord } from '../ports/store.js';
import { sameTokenRecord } from './same-token-record.js';
import { copyTokenRecord } from './token-record-copy.js';

/** The subscribers of a Store's record-change event; every Store adapter notifies through one of these. */
export class RecordChangeListeners {
  private readonly listeners = new Set<RecordChangeListener>();

  add(listener: RecordChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells every listener when the record really changed; one that throws is reported to `onError`
   * and never stops the others or the change itself.
   */
  notify(
    record: TokenRecord | null,
    previous: TokenRecord | null,
    onError: (error: unknown) => void = () => undefined,
    origin: RecordChangeOrigin = 'this_process',
  ): void {
    if (sameTokenRecord(record, previous)) return;
    for (const listener of this.listeners) {
      try {
        listener(record ? copyTokenRecord(record) : null, previous ? copyTokenRecord(previous) : null, origin);
      } catch (error) {
        onError(error);
      }
    }
  }
}
