import { DETAILS, type ApiKeyEntry } from '@webui/core';
import type * as v from 'valibot';
import type { ApiKeyBody } from '../../schemas.js';

export type ApiKeyJson = v.InferOutput<typeof ApiKeyBody>;

/** A key's metadata on the wire: snake_case, times as ISO 8601 (the HTTP API, `webui keys list --json` and the control socket). */
export function apiKeyJson(entry: ApiKeyEntry): ApiKeyJson {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    name: entry.name,
    scope: entry.scope,
    created_at: new Date(entry.createdAt).toISOString(),
    expires_at: iso(entry.expiresAt),
    last_used_at: iso(entry.lastUsedAt),
    expired: entry.expired,
  };
}

// The refusal sentences are the core's, shared with the CLI.
export const KEY_REFUSAL_DETAIL: typeof DETAILS.keyRefusal = DETAILS.keyRefusal;
