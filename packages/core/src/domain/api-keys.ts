import { apiKeyHash, looksLikeApiKey, newApiKey } from './api-key-format.js';
import { constantTimeEqual } from './primitives/constant-time-equal.js';
import type { Clock } from '../ports/clock.js';
import type { RandomSource } from '../ports/random-source.js';
import type { ApiKeyRecord, ApiKeyScope, Store } from '../ports/store.js';
import { requireRecord, type RecordEditor } from './tokens/record-editor.js';
import { err, ok, type Result } from './result.js';

/** Keys live in the durable record, which every request reads: a bound keeps it small (docs/decisions/0014-bounded-memory.md). */
export const MAX_API_KEYS = 100;
/** Last use is written at most this often per key: a busy script must not turn every request into a file write. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A key as operators see it: its metadata, never the key or its hash. */
export interface ApiKeyEntry {
  name: string;
  scope: ApiKeyScope;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  expired: boolean;
}

export type CreateKeyRefusal = 'invalid_key_name' | 'key_name_taken' | 'too_many_keys';

/** What a presented key turned out to be. `session` names what its WebSocket tickets and sockets belong to. */
export type KeyCheck =
  { kind: 'valid'; entry: ApiKeyEntry; session: string; firstUse: boolean } | { kind: 'expired'; entry: ApiKeyEntry } | { kind: 'unknown' };

// A space can never be part of an access token (docs/decisions/0005-weak-tokens.md), so a key's session never equals a token.
const KEY_SESSION_PREFIX = 'api-key ';

/** The session a key's tickets and sockets belong to: revoking the key ends it. */
export function keySession(keyHash: string): string {
  return KEY_SESSION_PREFIX + keyHash;
}

export function isKeySession(session: string): boolean {
  return session.startsWith(KEY_SESSION_PREFIX);
}

/** API keys for scripts: created with a name and a scope, shown once, kept hashed in the durable record. */
export class ApiKeys {
  constructor(
    private readonly store: Pick<Store, 'record'>,
    private readonly editor: RecordEditor,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  /** Makes a key; the key itself is in this result and nowhere else. `lifetimeMs` null: it never expires. */
  async create(request: {
    name: string;
    scope: ApiKeyScope;
    lifetimeMs: number | null;
  }): Promise<Result<{ key: string; entry: ApiKeyEntry }, CreateKeyRefusal>> {
    if (!NAME_PATTERN.test(request.name)) return err('invalid_key_name');
    const key = newApiKey(this.random);
    const keyHash = await apiKeyHash(key);
    const now = this.clock.now();
    const created: ApiKeyRecord = {
      name: request.name,
      scope: request.scope,
      keyHash,
      createdAt: now,
      expiresAt: request.lifetimeMs === null ? null : now + request.lifetimeMs,
      lastUsedAt: null,
    };
    return this.editor.edit<Result<{ key: string; entry: ApiKeyEntry }, CreateKeyRefusal>>((current) => {
      const record = requireRecord(current);
      const keys = record.apiKeys ?? [];
      if (keys.some((existing) => existing.name === request.name)) return { next: null, result: err('key_name_taken' as const) };
      if (keys.length >= MAX_API_KEYS) return { next: null, result: err('too_many_keys' as const) };
      return { next: { ...record, apiKeys: [...keys, created] }, result: ok({ key, entry: this.entryOf(created) }) };
    });
  }

  async list(): Promise<ApiKeyEntry[]> {
    return ((await this.store.record.readRecord())?.apiKeys ?? []).map((key) => this.entryOf(key));
  }

  /** Revokes the key named `name`; null when there is none. Its tickets and sockets end with it. */
  revoke(name: string): Promise<ApiKeyEntry | null> {
    return this.remove((key) => key.name === name).then((removed) => removed[0] ?? null);
  }

  /** Revokes every key (a token change never does). */
  revokeAll(): Promise<ApiKeyEntry[]> {
    return this.remove(() => true);
  }

  /** Looks a presented secret up among the keys; a valid key's first use in a minute writes its last-used time. */
  async check(presented: string): Promise<KeyCheck> {
    if (!looksLikeApiKey(presented)) return { kind: 'unknown' };
    const hash = await apiKeyHash(presented);
    const found = findByHash((await this.store.record.readRecord())?.apiKeys ?? [], hash);
    if (!found) return { kind: 'unknown' };
    const now = this.clock.now();
    if (isExpired(found, now)) return { kind: 'expired', entry: this.entryOf(found) };
    let firstUse = false;
    if (found.lastUsedAt === null || now - found.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      // Decided inside the serialised edit: two first requests at once report one first use.
      firstUse = await this.editor.edit((current) => {
        const record = requireRecord(current);
        const keys = record.apiKeys ?? [];
        const key = findByHash(keys, hash);
        if (!key || (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_RESOLUTION_MS)) return { next: null, result: false };
        const next = { ...record, apiKeys: keys.map((other) => (other === key ? { ...key, lastUsedAt: now } : other)) };
        return { next, result: key.lastUsedAt === null };
      });
    }
    return { kind: 'valid', entry: this.entryOf({ ...found, lastUsedAt: now }), session: keySession(hash), firstUse };
  }

  /** Whether a presented secret is a key that exists and has not expired; unlike check, it writes nothing. */
  async matches(presented: string): Promise<boolean> {
    if (!looksLikeApiKey(presented)) return false;
    const found = findByHash((await this.store.record.readRecord())?.apiKeys ?? [], await apiKeyHash(presented));
    return found !== undefined && !isExpired(found, this.clock.now());
  }

  /** The entry of the key a session came from (its name and scope for a socket's principal); null once revoked or expired. */
  async liveEntry(session: string): Promise<ApiKeyEntry | null> {
    if (!isKeySession(session)) return null;
    const found = findByHash((await this.store.record.readRecord())?.apiKeys ?? [], session.slice(KEY_SESSION_PREFIX.length));
    return found === undefined || isExpired(found, this.clock.now()) ? null : this.entryOf(found);
  }

  private remove(matches: (key: ApiKeyRecord) => boolean): Promise<ApiKeyEntry[]> {
    return this.editor.edit((current) => {
      const record = requireRecord(current);
      const keys = record.apiKeys ?? [];
      const removed = keys.filter(matches);
      if (removed.length === 0) return { next: null, result: [] };
      return { next: { ...record, apiKeys: keys.filter((key) => !matches(key)) }, result: removed.map((key) => this.entryOf(key)) };
    });
  }

  private entryOf(key: ApiKeyRecord): ApiKeyEntry {
    return {
      name: key.name,
      scope: key.scope,
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      lastUsedAt: key.lastUsedAt,
      expired: isExpired(key, this.clock.now()),
    };
  }
}

function isExpired(key: ApiKeyRecord, now: number): boolean {
  return key.expiresAt !== null && now >= key.expiresAt;
}

// Hashes are compared in constant time too: nothing about a stored hash leaks through timing.
function findByHash(keys: readonly ApiKeyRecord[], hash: string): ApiKeyRecord | undefined {
  let found: ApiKeyRecord | undefined;
  for (const key of keys) if (constantTimeEqual(hash, key.keyHash) && !found) found = key;
  return found;
}

/** The keys in `previous` that `next` no longer has. */
/** The keys revoked between two records: their names (for the audit) and their sessions (whose tickets and sockets must end). */
export function revokedKeys(
  previous: readonly ApiKeyRecord[] | undefined,
  next: readonly ApiKeyRecord[] | undefined,
): { name: string; session: string }[] {
  const kept = new Set((next ?? []).map((key) => key.keyHash));
  return (previous ?? []).filter((key) => !kept.has(key.keyHash)).map((key) => ({ name: key.name, session: keySession(key.keyHash) }));
}

/** The sessions of keys revoked between two records: their tickets and sockets must end. */
export function revokedKeySessions(previous: readonly ApiKeyRecord[] | undefined, next: readonly ApiKeyRecord[] | undefined): string[] {
  return revokedKeys(previous, next).map((key) => key.session);
}
