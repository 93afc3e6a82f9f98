import { clearable, tallyFailure } from './failure-tally.js';
import type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from './ports/attempt-store.js';
import type { Clock } from './ports/clock.js';
import { RememberedKeys } from './remembered-keys.js';

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * Failures, bans and recent logins per client key, in memory. Every call is synchronous from read to
 * write, which makes it atomic; the map keeps insertion order, so its first entry is the oldest.
 */
export class MemoryAttempts implements AttemptStore {
  private readonly attempts = new Map<string, Expiring<AttemptRecord>>();
  private readonly logins: RememberedKeys;

  constructor(
    private readonly clock: Clock,
    private readonly limits: { maxAttemptKeys: number; maxRecentSuccesses: number },
  ) {
    this.logins = new RememberedKeys(limits.maxRecentSuccesses);
  }

  async countFailure(key: string, failure: FailureToCount): Promise<FailureTally> {
    const { tally, keep } = tallyFailure(this.live(key, failure.at), failure);
    if (keep) {
      // Delete first so the key moves to the end: the map stays ordered by last write.
      this.attempts.delete(key);
      if (this.attempts.size >= this.limits.maxAttemptKeys) this.evict();
      this.attempts.set(key, { value: keep.record, expiresAt: keep.until });
    }
    return tally;
  }

  async recordLogin(key: string, now: number, rememberUntil?: number): Promise<void> {
    if (rememberUntil !== undefined) this.logins.remember(key, rememberUntil);
    if (clearable(this.live(key, now), now)) this.attempts.delete(key);
  }

  async readClient(key: string): Promise<ClientState> {
    const now = this.clock.now();
    const record = this.live(key, now);
    return { attempts: record ? copyAttempts(record) : null, loggedInRecently: this.logins.has(key, now) };
  }

  async readAttempts(key: string): Promise<AttemptRecord | null> {
    const record = this.live(key, this.clock.now());
    return record ? copyAttempts(record) : null;
  }

  async deleteAttempts(key: string): Promise<void> {
    this.attempts.delete(key);
  }

  async listAttempts(): Promise<AttemptEntry[]> {
    const now = this.clock.now();
    const entries: AttemptEntry[] = [];
    for (const [key, entry] of this.attempts) if (entry.expiresAt > now) entries.push({ key, record: copyAttempts(entry.value) });
    return entries;
  }

  /** Drops expired records and logins. */
  sweep(now: number): void {
    for (const [key, entry] of this.attempts) if (entry.expiresAt <= now) this.attempts.delete(key);
    this.logins.sweep(now);
  }

  /** Client keys with failures or a ban held now, for tests and the memory benchmark. */
  get size(): number {
    return this.attempts.size;
  }

  private live(key: string, now: number): AttemptRecord | null {
    const entry = this.attempts.get(key);
    if (!entry) return null;
    if (entry.expiresAt > now) return entry.value;
    this.attempts.delete(key);
    return null;
  }

  private evict(): void {
    const now = this.clock.now();
    // Oldest expired-or-unbanned record goes (a flood cannot lift bans); no full sweep, which cost O(maxAttemptKeys) per guess.
    for (const [key, entry] of this.attempts) {
      if (entry.expiresAt <= now || entry.value.bannedUntil === undefined || entry.value.bannedUntil <= now) {
        this.attempts.delete(key);
        return;
      }
    }
    this.attempts.delete(this.attempts.keys().next().value as string);
  }
}

function copyAttempts(record: AttemptRecord): AttemptRecord {
  const copy: AttemptRecord = { failures: record.failures.map((failure) => ({ ...failure })) };
  if (record.bannedUntil !== undefined) copy.bannedUntil = record.bannedUntil;
  if (record.lastFailureAt !== undefined) copy.lastFailureAt = record.lastFailureAt;
  return copy;
}
