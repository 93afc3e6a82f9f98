import type { ApiKeyRecord, TokenRecord } from '../ports/store.js';

/** Whether two records hold the same values, field by field: what a compare-and-set and a change notice compare. */
export function sameTokenRecord(a: TokenRecord | null, b: TokenRecord | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.accessToken === b.accessToken &&
    a.tokenSource === b.tokenSource &&
    a.firstSetupCompleted === b.firstSetupCompleted &&
    a.secretKeyFingerprint === b.secretKeyFingerprint &&
    sameKeys(a.apiKeys ?? [], b.apiKeys ?? [])
  );
}

function sameKeys(a: readonly ApiKeyRecord[], b: readonly ApiKeyRecord[]): boolean {
  return (
    a.length === b.length &&
    a.every((key, i) => {
      const other = b[i] as ApiKeyRecord;
      return (
        key.name === other.name &&
        key.scope === other.scope &&
        key.keyHash === other.keyHash &&
        key.createdAt === other.createdAt &&
        key.expiresAt === other.expiresAt &&
        key.lastUsedAt === other.lastUsedAt
      );
    })
  );
}
