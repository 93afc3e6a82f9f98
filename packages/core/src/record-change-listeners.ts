import type { ApiKeyRecord, RecordChangeListener, RecordChangeOrigin, TokenRecord } from './ports/store.js';
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
  notify(record: TokenRecord | null, previous: TokenRecord | null, onError: (error: unknown) => void = () => undefined, origin: RecordChangeOrigin = 'this_process'): void {
    if (sameRecord(record, previous)) return;
    for (const listener of this.listeners) {
      try {
        listener(record ? copyTokenRecord(record) : null, previous ? copyTokenRecord(previous) : null, origin);
      } catch (error) {
        onError(error);
      }
    }
  }
}

function sameRecord(a: TokenRecord | null, b: TokenRecord | null): boolean {
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
      return key.name === other.name && key.scope === other.scope && key.keyHash === other.keyHash && key.createdAt === other.createdAt && key.expiresAt === other.expiresAt && key.lastUsedAt === other.lastUsedAt;
    })
  );
}
