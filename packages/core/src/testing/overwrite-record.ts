import type { RecordStore } from '../ports/record-store.js';
import type { TokenRecord } from '../ports/token-record.js';

/** Writes `record` whatever the store holds, retrying the compare-and-set until it wins: how tests set a store up. */
export async function overwriteRecord(store: RecordStore, record: TokenRecord): Promise<void> {
  let current = await store.readRecord();
  for (;;) {
    const swap = await store.swapRecord(current, record);
    if (swap.swapped) return;
    current = swap.current;
  }
}
