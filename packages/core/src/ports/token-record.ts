export type TokenSource = 'temporary' | 'configured';

/** The durable record kept in data/webui.json. */
export interface TokenRecord {
  accessToken: string;
  /** Absent in files written by older versions; the core infers it, a 64-hex token being temporary (docs/decisions/0012-token-file.md). */
  tokenSource?: TokenSource;
  firstSetupCompleted: boolean;
  /** SHA-256 hex of webui.secret_key the sessions were issued under; a different key at startup revokes them all (docs/decisions/0010-secret-key-revokes-sessions.md). */
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
