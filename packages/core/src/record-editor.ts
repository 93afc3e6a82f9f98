import type { Store, TokenRecord } from './ports/store.js';
import { SerialQueue } from './serial-queue.js';

/**
 * Serialises read-modify-write of the durable record, so a token update and a setup change
 * arriving together never overwrite each other.
 */
export class RecordEditor {
  private readonly queue = new SerialQueue();

  constructor(private readonly store: Store) {}

  async read(): Promise<TokenRecord> {
    return requireRecord(await this.store.readRecord());
  }

  /** Runs `change` on the current record; when it returns a record, that record is written. */
  edit<T>(change: (current: TokenRecord | null) => { next: TokenRecord | null; result: T }): Promise<T> {
    return this.queue.run(async () => {
      const { next, result } = change(await this.store.readRecord());
      if (next) await this.store.writeRecord(next);
      return result;
    });
  }
}

/** A record is always there once TokenService.bootstrap() has run; its absence is a wiring bug. */
export function requireRecord(record: TokenRecord | null): TokenRecord {
  if (!record) throw new Error('the token record is missing: TokenService.bootstrap() must run first');
  return record;
}
