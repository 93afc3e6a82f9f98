import type { ApiKeyEntry, CreateKeyRefusal } from '@webui/core';
import type * as v from 'valibot';
import type { ApiKeyBody } from './schemas.js';

export type ApiKeyJson = v.InferOutput<typeof ApiKeyBody>;

/** A key's metadata on the wire: snake_case, times as ISO 8601 (the HTTP API, `webui keys list --json` and the control socket). */
export function apiKeyJson(entry: ApiKeyEntry): ApiKeyJson {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return { name: entry.name, scope: entry.scope, created_at: new Date(entry.createdAt).toISOString(), expires_at: iso(entry.expiresAt), last_used_at: iso(entry.lastUsedAt), expired: entry.expired };
}

/** Why a key was not created, in words, for the HTTP answer and the CLI alike. */
export const KEY_REFUSAL_DETAIL: Record<CreateKeyRefusal | 'invalid_expiry', string> = {
  invalid_key_name: 'A key name is 1 to 64 characters: letters, digits, `.`, `_` or `-`, starting with a letter or digit.',
  key_name_taken: 'A key with this name exists; revoke it first or choose another name.',
  too_many_keys: 'There are 100 keys already; revoke some first.',
  invalid_expiry: 'expires must be a whole number and s, m, h, d or w (e.g. 90d), at most ten years.',
};
