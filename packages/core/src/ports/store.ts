export type TokenSource = 'temporary' | 'configured';

/** The durable record kept in data/webui.json. */
export interface TokenRecord {
  accessToken: string;
  /** Absent in files written by older versions; the core infers it, a 64-hex token being temporary (DESIGN D12). */
  tokenSource?: TokenSource;
  firstSetupCompleted: boolean;
  /** SHA-256 hex of webui.secret_key the sessions were issued under; a different key at startup revokes them all (DESIGN D10). */
  secretKeyFingerprint?: string;
  /** Keys for scripts, kept hashed; absent or empty when none was created. A token change keeps them. */
  apiKeys?: ApiKeyRecord[];
}

/** What a key may do: `read` calls GET endpoints and opens the WebSocket; `admin` changes state too. */
export type ApiKeyScope = 'read' | 'admin';

/** One API key as the durable record keeps it: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  name: string;
  scope: ApiKeyScope;
  /** SHA-256 hex of the key (see api-key-hash.ts). */
  keyHash: string;
  createdAt: number;
  /** null: never expires. */
  expiresAt: number | null;
  /** Written at most once a minute per key; null until first used. */
  lastUsedAt: number | null;
}

/** Failed verifications of one client key inside the sliding window, and its ban. */
export interface AttemptRecord {
  /** Times of the counted failures, oldest first. */
  failures: Array<{ at: number; cookie?: string }>;
  bannedUntil?: number;
  /** When the last counted failure happened: the failures are emptied when a ban starts, this is not. */
  lastFailureAt?: number;
}

/** A client key's attempt record, as listed for operators. */
export interface AttemptEntry {
  key: string;
  record: AttemptRecord;
}

/** What a WebSocket ticket grants, and until when. */
export interface TicketGrant {
  sessionToken: string;
  expiresAt: number;
}

/**
 * Who made a change: this process through the store; another instance sharing the store (it records
 * the change in its own audit trail); or anyone else (another process, a hand edit of the file).
 */
export type RecordChangeOrigin = 'this_process' | 'another_instance' | 'elsewhere';

/** Told the new record and the one it replaced, whoever changed it: this process, another one, a hand edit. */
export type RecordChangeListener = (record: TokenRecord | null, previous: TokenRecord | null, origin: RecordChangeOrigin) => void;

/**
 * One failed verification to count, with the numbers to count it by: BanPolicy decides them, the
 * store applies them in one atomic step, so processes sharing a store never lose a failure.
 */
export interface FailureToCount {
  at: number;
  /** A wrong cookie value: not counted again while a failure with the same value is in the window. */
  cookie?: string;
  /** Failures at or before this time have left the window. */
  windowStart: number;
  /** Failures in the window, this one included, that start a ban. */
  threshold: number;
  /** When a ban started by this failure ends. */
  banUntil: number;
  /** Until when a record without a ban is kept: its newest failure leaving the window. */
  keepUntil: number;
}

/** What counting a failure did. */
export type FailureTally =
  | { kind: 'already_banned'; bannedUntil: number }
  | { kind: 'repeated'; failures: number }
  | { kind: 'counted'; failures: number }
  | { kind: 'banned'; bannedUntil: number };

/** The outcome of a compare-and-set of the durable record: on a lost race, the record that won. */
export type RecordSwap = { swapped: true } | { swapped: false; current: TokenRecord | null };

/**
 * Everything the core keeps. Every step that must be atomic is one call (count a failure, clear
 * them, consume a ticket, compare-and-set the record), so several processes can share one store
 * (Redis) without losing a failure or spending a ticket twice (DESIGN D16). `MemoryStore` keeps it in memory.
 */
export interface Store {
  /** The durable record, or null when none was ever written; a shared store may answer from the last record it heard of. */
  readRecord(): Promise<TokenRecord | null>;
  /**
   * Replaces the durable record with `next` if it is still `expected` (compared by value), atomically:
   * a reader sees the old or the new one, never a mix, and two concurrent swaps from one record cannot both win.
   */
  swapRecord(expected: TokenRecord | null, next: TokenRecord): Promise<RecordSwap>;
  /**
   * Subscribes to changes of the durable record, whoever made them, once the change is in force;
   * returns the unsubscribe. A listener that throws never undoes the change.
   */
  onRecordChanged(listener: RecordChangeListener): () => void;

  /** Counts a failure of a client key (and starts the ban it may lead to) in one atomic step. */
  countFailure(key: string, failure: FailureToCount): Promise<FailureTally>;
  /** Forgets a client key's failures, in one step, unless a ban runs at `now` (a ban ends only when its time is up). */
  clearFailures(key: string, now: number): Promise<void>;
  /** A client key's failures and ban, or null when it has none. */
  readAttempts(key: string): Promise<AttemptRecord | null>;
  /** Forgets a client key's failures and ban (an operator's lift). */
  deleteAttempts(key: string): Promise<void>;
  /** Every attempt record not expired yet, in no particular order. */
  listAttempts(): Promise<AttemptEntry[]>;

  /** Adds `count` failures to the bucket `bucket` (a minute number), kept until `expiresAt`. */
  addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void>;
  /** Failures per bucket for every bucket at or after `fromBucket`, oldest first. */
  readGlobalFailures(fromBucket: number): Promise<Array<{ bucket: number; count: number }>>;
  /** Forgets every bucket at once (an operator's reset); counts added afterwards start from nothing. */
  clearGlobalFailures(): Promise<void>;

  /** Remembers that a client key logged in, until `until`; the store may forget the oldest when full. */
  rememberSuccess(key: string, until: number): Promise<void>;
  /** Whether the client key logged in and the memory of it has not expired. */
  hasRecentSuccess(key: string): Promise<boolean>;

  /** Remembers the fingerprint of a token that was valid, until `until`; the store may forget the oldest when full. */
  retireToken(fingerprint: string, until: number): Promise<void>;
  isRetiredToken(fingerprint: string): Promise<boolean>;

  /** Keeps a ticket until its grant expires; the store may drop the oldest of a session or overall when full. */
  putTicket(ticket: string, grant: TicketGrant): Promise<void>;
  /** Returns and removes the grant in one step, so a ticket is spent at most once, by whichever process asks first. */
  consumeTicket(ticket: string): Promise<TicketGrant | null>;
  /** Drops every ticket issued from this session token, by any process sharing the store. */
  revokeTickets(sessionToken: string): Promise<void>;
}

/** Thrown by a Store that cannot reach its backing service; the server answers 503 store_unavailable and keeps running. */
export class StoreUnavailableError extends Error {
  /** What the store's client reported, for the log. */
  readonly reason: unknown;

  constructor(message: string, options: { cause?: unknown } = {}) {
    // Not passed to Error itself: every runtime's lib (Deno's included) takes the one-argument form.
    super(message);
    this.name = 'StoreUnavailableError';
    this.reason = options.cause;
  }
}
