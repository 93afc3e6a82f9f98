import type { Store, TokenRecord } from '../../ports/store.js';
import { SerialQueue } from '../../adapter/serial-queue.js';

/**
 * Read-modify-write of the durable record: one at a time in this process, and compare-and-set in the
 * store, so a change made meanwhile by another process is never overwritten: the change runs again on it.
 */
export class RecordEditor {
  private readonly queue = new SerialQueue();

  constructor(private readonly store: Pick<Store, 'record'>) {}

  async read(): Promise<TokenRecord> {
    return requireRecord(await this.store.record.readRecord());
  }

  /** Runs `change` on the current record; when it returns a record, that record is written. */
  edit<T>(change: (current: TokenRecord | null) => { next: TokenRecord | null; result: T }): Promise<T> {
    return this.queue.run(async () => {
      let current = await this.store.record.readRecord();
      for (;;) {
        const { next, result } = change(current);
        if (!next) return result;
        const swap = await this.store.record.swapRecord(current, next);
        if (swap.swapped) return result;
        current = swap.current;
      }
    });
  }
}

/** A record is always there once TokenService.bootstrap() has run; its absence is a wiring bug. */
export function requireRecord(record: TokenRecord | null): TokenRecord {
  if (!record) throw new Error('the token record is missing: TokenService.bootstrap() must run first');
  return record;
}
