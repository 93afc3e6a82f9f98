import type { CredentialHow } from '../domain/security-event.js';
import type { PresentedValue } from './attempts.js';

/**
 * The credentials a request presents, as its transport read them (the Cookie and Authorization headers
 * parsed, nothing looked up): every bot_session cookie with the tokens it may stand for (as sent,
 * percent-decoded), the bearer secret ('' for a Bearer without one, null for none), and whether the
 * Authorization header held more than one credential.
 */
export interface PresentedCredentials {
  cookies: readonly PresentedValue[];
  bearer: string | null;
  severalAuthorizations: boolean;
}

/**
 * Why a request that presents more than one credential is refused: two of one kind (bot_session
 * cookies, Authorization fields, WebSocket `token` parameters), or a cookie and a bearer that differ.
 */
export type AmbiguousCredentials = 'duplicate_credentials' | 'conflicting_credentials';

/**
 * Why a request presents more than one credential, judged on the values as presented, before any
 * lookup: two bot_session cookies (even equal ones: we never set two), two Authorization fields, or a
 * cookie and a bearer that differ (a disagreement says nothing about either secret).
 */
export function ambiguityOf(presented: PresentedCredentials): { code: AmbiguousCredentials; how: CredentialHow } | null {
  const { cookies, bearer } = presented;
  if (cookies.length > 1) return { code: 'duplicate_credentials', how: 'cookie' };
  if (presented.severalAuthorizations) return { code: 'duplicate_credentials', how: 'bearer' };
  const [cookie] = cookies;
  if (bearer !== null && cookie !== undefined && !cookie.tokens.includes(bearer)) return { code: 'conflicting_credentials', how: 'bearer' };
  return null;
}
