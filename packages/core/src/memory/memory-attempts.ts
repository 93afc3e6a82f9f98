import { clearable, tallyFailure } from '../adapter/failure-tally.js';
import type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from '../ports/attempt-store.js';
import type { Awaitable } from '../ports/awaitable.js';
import type { Clock } from '../ports/clock.js';
import { RememberedKeys } from './remembered-keys.js';

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * Failures, bans and recent logins per client key, in memory. Every call is synchronous from read to
 * write, which makes it atomic. Counts under the threshold and running bans are kept apart: only the counts are capped
 * (maxAttemptKeys), a new key finding them full is refused rather than anything evicted, and a ban stays until it ends.
 * Each map keeps insertion order, so its first entry is the oldest written.
 */
export class MemoryAttempts implements AttemptStore {
  private readonly counting = new Map<string, Expiring<AttemptRecord>>();
  private readonly bans = new Map<string, Expiring<AttemptRecord>>();
  private readonly logins: RememberedKeys;

  constructor(
    private readonly clock: Clock,
    private readonly limits: { maxAttemptKeys: number; maxRecentSuccesses: number },
  ) {
    this.logins = new RememberedKeys(limits.maxRecentSuccesses);
  }

  async countFailure(key: string, failure: FailureToCount): Promise<FailureTally> {
    const { tally, keep } = tallyFailure(this.live(key, failure.at), failure);
    if (!keep) return tally;
    const entry = { value: keep.record, expiresAt: keep.until };
    if (keep.record.bannedUntil !== undefined) {
      this.forget(key);
      this.bans.set(key, entry);
      return tally;
    }
    if (!this.counting.has(key) && this.counting.size >= this.limits.maxAttemptKeys) {
      this.dropExpiredCounts(failure.at);
      if (this.counting.size >= this.limits.maxAttemptKeys) return { kind: 'full' };
    }
    // Forgotten first so the key moves to the end: the map stays ordered by last write.
    this.forget(key);
    this.counting.set(key, entry);
    return tally;
  }

  async recordLogin(key: string, now: number, rememberUntil?: number): Promise<void> {
    if (rememberUntil !== undefined) this.logins.remember(key, rememberUntil);
    if (clearable(this.live(key, now), now)) this.forget(key);
  }

  readClient(key: string): Awaitable<ClientState> {
    const now = this.clock.now();
    const record = this.live(key, now);
    const state: ClientState = { attempts: record ? copyAttempts(record) : null, loggedInRecently: this.logins.has(key, now) };
    if (record === null && this.counting.size >= this.limits.maxAttemptKeys) {
      this.dropExpiredCounts(now);
      const oldest = this.counting.values().next().value;
      if (this.counting.size >= this.limits.maxAttemptKeys && oldest !== undefined) state.countsFullUntil = oldest.expiresAt;
    }
    return state;
  }

  async readAttempts(key: string): Promise<AttemptRecord | null> {
    const record = this.live(key, this.clock.now());
    return record ? copyAttempts(record) : null;
  }

  async deleteAttempts(key: string): Promise<void> {
    this.forget(key);
  }

  async listAttempts(): Promise<AttemptEntry[]> {
    const now = this.clock.now();
    const entries: AttemptEntry[] = [];
    for (const map of [this.bans, this.counting])
      for (const [key, entry] of map) if (entry.expiresAt > now) entries.push({ key, record: copyAttempts(entry.value) });
    return entries;
  }

  /** Drops expired records and logins. */
  sweep(now: number): void {
    for (const map of [this.bans, this.counting]) for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    this.logins.sweep(now);
  }

  /** Client keys with failures or a ban held now, for tests and the memory benchmark. */
  get size(): number {
    return this.counting.size + this.bans.size;
  }

  private live(key: string, now: number): AttemptRecord | null {
    const entry = this.bans.get(key) ?? this.counting.get(key);
    if (!entry) return null;
    if (entry.expiresAt > now) return entry.value;
    this.forget(key);
    return null;
  }

  private forget(key: string): void {
    this.counting.delete(key);
    this.bans.delete(key);
  }

  /** The oldest written counts first, up to the first live one: each count lives one window, so this is no full sweep per guess. */
  private dropExpiredCounts(now: number): void {
    for (const [key, entry] of this.counting) {
      if (entry.expiresAt > now) return;
      this.counting.delete(key);
    }
  }
}

function copyAttempts(record: AttemptRecord): AttemptRecord {
  const copy: AttemptRecord = { failures: record.failures.map((failure) => ({ ...failure })) };
  if (record.bannedUntil !== undefined) copy.bannedUntil = record.bannedUntil;
  if (record.lastFailureAt !== undefined) copy.lastFailureAt = record.lastFailureAt;
  return copy;
}
