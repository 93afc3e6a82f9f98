import type { BanEntry } from '@webui/core';
import type * as v from 'valibot';
import type { BanEntryBody } from '../../schemas.js';

export type BanEntryJson = v.InferOutput<typeof BanEntryBody>;

/** A ban entry on the wire: snake_case, times as ISO 8601 (the HTTP API, `webui bans list --json` and the control socket). */
export function banEntryJson(entry: BanEntry): BanEntryJson {
  return {
    key: entry.key,
    failures: entry.failures,
    banned_until: entry.bannedUntil === null ? null : new Date(entry.bannedUntil).toISOString(),
    last_attempt: entry.lastFailureAt === null ? null : new Date(entry.lastFailureAt).toISOString(),
  };
}
