import type { CredentialHow } from '@webui/core';
import type { AttemptClient, AttemptGate, AttemptRefusal } from './attempt-gate.js';

/**
 * Why a request that presents more than one credential is refused: two of one kind (bot_session
 * cookies, Authorization fields, WebSocket `token` parameters), or a cookie and a bearer that differ.
 */
export type AmbiguousCredentials = 'duplicate_credentials' | 'conflicting_credentials';

export const AMBIGUOUS_CREDENTIALS_DETAIL: Record<AmbiguousCredentials, string> = {
  duplicate_credentials: 'The request carries more than one credential (bot_session cookies, Authorization headers or token parameters); send exactly one. It counts as a failed attempt.',
  conflicting_credentials: 'The request carries a bot_session cookie and an Authorization bearer that differ; send one credential. It counts as a failed attempt.',
};

/**
 * Counts a request with more than one credential as one failed attempt without comparing any of them,
 * so that many values in one request are one guess, not many (and not a way around the ban). A client
 * already banned, or held back by the global budget, gets that refusal first; so does the attempt that bans.
 */
export async function countAmbiguousAttempt(client: AttemptClient, gate: AttemptGate, how: CredentialHow): Promise<AttemptRefusal | null> {
  const { admission, refusal } = await gate.admit(client);
  if (refusal) return refusal;
  const outcome = await gate.failed(client, admission, how);
  return outcome.banned ? { retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' } : null;
}
