import { createHash } from 'node:crypto';

/** Only a hash of webui.secret_key is kept in webui.json, enough to notice that it changed (docs/decisions/0010-secret-key-revokes-sessions.md). */
export function secretKeyFingerprint(secretKey: string | undefined): string | undefined {
  return secretKey === undefined ? undefined : createHash('sha256').update(secretKey, 'utf8').digest('hex');
}
