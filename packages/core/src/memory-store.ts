import type { Clock } from './ports/clock.js';
import { clearable, tallyFailure } from './failure-tally.js';
import type { AttemptEntry, AttemptRecord, FailureTally, FailureToCount, RecordChangeListener, RecordSwap, Store, TicketGrant, TokenRecord } from './ports/store.js';
import { RecordChangeListeners } from './record-change-listeners.js';
import { sameTokenRecord } from './same-token-record.js';
import { copyTokenRecord } from './token-record-copy.js';

/** Caps that keep the short-lived state bounded whatever clients do (DESIGN D14). */
export interface MemoryStoreLimits {
  /** Client keys with failures or a ban that are remembered at once. */
  maxAttemptKeys: number;
  /** Outstanding tickets overall. */
  maxTickets: number;
  /** Outstanding tickets of one session token. */
  maxTicketsPerSession: number;
  /** Client keys remembered for a recent login. */
  maxRecentSuccesses: number;
  /** Fingerprints of retired tokens remembered at once. */
  maxRetiredTokens: number;
}

export const DEFAULT_MEMORY_STORE_LIMITS: MemoryStoreLimits = {
  maxAttemptKeys: 100_000,
  maxTickets: 10_000,
  maxTicketsPerSession: 256,
  maxRecentSuccesses: 10_000,
  maxRetiredTokens: 1_000,
};

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * A Store held in memory: the durable record (for tests and quick starts) and the short-lived
 * state every single-process deployment keeps in memory. Maps keep insertion order, so the
 * first entry is always the oldest one and eviction is O(1).
 */
export class MemoryStore implements Store {
  private record: TokenRecord | null;
  private readonly attempts = new Map<string, Expiring<AttemptRecord>>();
  private readonly tickets = new Map<string, TicketGrant>();
  private readonly ticketsBySession = new Map<string, Set<string>>();
  private readonly globalFailures = new Map<number, Expiring<number>>();
  private readonly recentSuccesses = new Map<string, number>();
  private readonly retiredTokens = new Map<string, number>();
  private readonly limits: MemoryStoreLimits;
  private readonly listeners = new RecordChangeListeners();
  private readonly onListenerError: (error: unknown) => void;

  constructor(
    private readonly clock: Clock,
    options: { record?: TokenRecord | null; limits?: Partial<MemoryStoreLimits>; onListenerError?: (error: unknown) => void } = {},
  ) {
    this.record = options.record ? copyTokenRecord(options.record) : null;
    this.limits = { ...DEFAULT_MEMORY_STORE_LIMITS, ...options.limits };
    this.onListenerError = options.onListenerError ?? (() => undefined);
  }

  async readRecord(): Promise<TokenRecord | null> {
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

  async readAttempts(key: string): Promise<AttemptRecord | null> {
    const record = this.liveAttempts(key, this.clock.now());
    return record ? structuredCopy(record) : null;
  }

  async countFailure(key: string, failure: FailureToCount): Promise<FailureTally> {
    // Synchronous from read to write: nothing else runs in between, which makes the step atomic.
    const { tally, keep } = tallyFailure(this.liveAttempts(key, failure.at), failure);
    if (keep) {
      // Delete first so the key moves to the end: the map stays ordered by last write.
      this.attempts.delete(key);
      if (this.attempts.size >= this.limits.maxAttemptKeys) this.evictAttempts();
      this.attempts.set(key, { value: keep.record, expiresAt: keep.until });
    }
    return tally;
  }

  async clearFailures(key: string, now: number): Promise<void> {
    if (clearable(this.liveAttempts(key, now), now)) this.attempts.delete(key);
  }

  async deleteAttempts(key: string): Promise<void> {
    this.attempts.delete(key);
  }

  async listAttempts(): Promise<AttemptEntry[]> {
    const now = this.clock.now();
    const entries: AttemptEntry[] = [];
    for (const [key, entry] of this.attempts) if (entry.expiresAt > now) entries.push({ key, record: structuredCopy(entry.value) });
    return entries;
  }

  async addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    // At most one bucket per minute of the window is live: dropping the expired ones keeps the map that small.
    for (const [key, entry] of this.globalFailures) if (entry.expiresAt <= now) this.globalFailures.delete(key);
    const current = this.globalFailures.get(bucket);
    this.globalFailures.set(bucket, { value: (current?.value ?? 0) + count, expiresAt: Math.max(expiresAt, current?.expiresAt ?? 0) });
  }

  async readGlobalFailures(fromBucket: number): Promise<Array<{ bucket: number; count: number }>> {
    const now = this.clock.now();
    const buckets: Array<{ bucket: number; count: number }> = [];
    for (const [bucket, entry] of this.globalFailures) if (bucket >= fromBucket && entry.expiresAt > now) buckets.push({ bucket, count: entry.value });
    return buckets.sort((a, b) => a.bucket - b.bucket);
  }

  async clearGlobalFailures(): Promise<void> {
    this.globalFailures.clear();
  }

  async rememberSuccess(key: string, until: number): Promise<void> {
    rememberUntil(this.recentSuccesses, key, until, this.limits.maxRecentSuccesses);
  }

  async hasRecentSuccess(key: string): Promise<boolean> {
    return isRemembered(this.recentSuccesses, key, this.clock.now());
  }

  async retireToken(fingerprint: string, until: number): Promise<void> {
    rememberUntil(this.retiredTokens, fingerprint, until, this.limits.maxRetiredTokens);
  }

  async isRetiredToken(fingerprint: string): Promise<boolean> {
    return isRemembered(this.retiredTokens, fingerprint, this.clock.now());
  }

  async putTicket(ticket: string, grant: TicketGrant): Promise<void> {
    let sessionTickets = this.ticketsBySession.get(grant.sessionToken);
    if (!sessionTickets) {
      sessionTickets = new Set();
      this.ticketsBySession.set(grant.sessionToken, sessionTickets);
    }
    if (sessionTickets.size >= this.limits.maxTicketsPerSession) {
      this.dropTicket(sessionTickets.values().next().value as string);
    }
    if (this.tickets.size >= this.limits.maxTickets) {
      this.sweepExpiredTickets();
      if (this.tickets.size >= this.limits.maxTickets) this.dropTicket(this.tickets.keys().next().value as string);
    }
    this.tickets.set(ticket, { ...grant });
    // The set may have been emptied and removed by the drops above.
    const current = this.ticketsBySession.get(grant.sessionToken) ?? new Set<string>();
    current.add(ticket);
    this.ticketsBySession.set(grant.sessionToken, current);
  }

  async consumeTicket(ticket: string): Promise<TicketGrant | null> {
    const grant = this.tickets.get(ticket);
    if (!grant) return null;
    this.dropTicket(ticket);
    return grant;
  }

  async revokeTickets(sessionToken: string): Promise<void> {
    for (const ticket of [...(this.ticketsBySession.get(sessionToken) ?? [])]) this.dropTicket(ticket);
  }

  /** Drops expired tickets and attempt records; a server calls it on a timer. */
  sweep(): void {
    this.sweepExpiredTickets();
    const now = this.clock.now();
    for (const [key, entry] of this.attempts) if (entry.expiresAt <= now) this.attempts.delete(key);
    for (const remembered of [this.recentSuccesses, this.retiredTokens]) for (const [key, until] of remembered) if (until <= now) remembered.delete(key);
  }

  /** Sizes, for tests and the memory benchmark. */
  get size(): { attempts: number; tickets: number } {
    return { attempts: this.attempts.size, tickets: this.tickets.size };
  }

  private liveAttempts(key: string, now: number): AttemptRecord | null {
    const entry = this.attempts.get(key);
    if (!entry) return null;
    if (entry.expiresAt > now) return entry.value;
    this.attempts.delete(key);
    return null;
  }

  private sweepExpiredTickets(): void {
    const now = this.clock.now();
    for (const [ticket, grant] of this.tickets) if (grant.expiresAt <= now) this.dropTicket(ticket);
  }

  private evictAttempts(): void {
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

  private dropTicket(ticket: string): void {
    const grant = this.tickets.get(ticket);
    if (!grant) return;
    this.tickets.delete(ticket);
    const sessionTickets = this.ticketsBySession.get(grant.sessionToken);
    sessionTickets?.delete(ticket);
    if (sessionTickets?.size === 0) this.ticketsBySession.delete(grant.sessionToken);
  }
}

/** Sets `key` last in insertion order, so the first key is always the least recently remembered, and drops it past `max`. */
function rememberUntil(map: Map<string, number>, key: string, until: number, max: number): void {
  map.delete(key);
  map.set(key, until);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

function isRemembered(map: Map<string, number>, key: string, now: number): boolean {
  const until = map.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  map.delete(key);
  return false;
}

function structuredCopy(record: AttemptRecord): AttemptRecord {
  const copy: AttemptRecord = { failures: record.failures.map((failure) => ({ ...failure })) };
  if (record.bannedUntil !== undefined) copy.bannedUntil = record.bannedUntil;
  if (record.lastFailureAt !== undefined) copy.lastFailureAt = record.lastFailureAt;
  return copy;
}
