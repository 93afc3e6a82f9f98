import type { TokenRecord } from '../ports/store.js';

/** A record a store hands in or out, its key list included: a caller mutating the copy never changes the store. */
export function copyTokenRecord(record: TokenRecord): TokenRecord {
  const copy = { ...record };
  if (record.apiKeys) copy.apiKeys = record.apiKeys.map((key) => ({ ...key }));
  return copy;
}
