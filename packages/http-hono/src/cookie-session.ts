import type { TokenStatus } from '@webui/core';
import type { Context } from 'hono';
import type { WebuiEnv } from './app-env.js';
import type { AttemptClient, AttemptGate, AttemptRefusal } from './attempt-gate.js';
import { requestHeader } from './runtime-port.js';
import { sessionCookieCandidates } from './session-cookie.js';

export type CookieSession =
  | { kind: 'none' }
  | { kind: 'valid'; token: string; status: TokenStatus }
  | { kind: 'invalid' }
  | ({ kind: 'refused' } & AttemptRefusal);

/** The client of a request as the edge resolved it. */
export function attemptClientOf(c: Context<WebuiEnv>): AttemptClient {
  return { ip: c.get('clientIp'), attributable: c.get('clientAttributable') };
}

/**
 * Checks the bot_session cookie. A wrong value counts as a failed verification (DESIGN D4) and a
 * banned client's cookie is not even compared, so no endpoint is an oracle outside the ban.
 */
export function readCookieSession(c: Context<WebuiEnv>, gate: AttemptGate, tokens: SessionTokens): Promise<CookieSession> {
  return checkSessionCookie(requestHeader(c, 'cookie'), attemptClientOf(c), gate, tokens);
}

/** What the check needs of the core's TokenService. */
export interface SessionTokens {
  statusFor(candidate: string): Promise<TokenStatus | null>;
}

/** readCookieSession over the Cookie header and the client themselves, for callers without a Hono context. */
export async function checkSessionCookie(cookieHeader: string | undefined, client: AttemptClient, gate: AttemptGate, tokens: SessionTokens): Promise<CookieSession> {
  const cookies = sessionCookieCandidates(cookieHeader);
  if (cookies.length === 0) return { kind: 'none' };
  const { admission, refusal } = await gate.admit(client);
  if (refusal) return { kind: 'refused', ...refusal };
  for (const cookie of cookies) {
    for (const candidate of cookie.tokens) {
      // The status comes with the check: /auth/check needs it, and it costs no second read.
      const status = await tokens.statusFor(candidate);
      if (status) {
        // Only an attempt that held a place in the global budget has anything to give back or remember.
        if (admission.hold !== null) await gate.succeeded(client, admission);
        return { kind: 'valid', token: candidate, status };
      }
    }
  }
  // Each distinct wrong value counts, so a request carrying many bot_session cookies is as many guesses.
  const distinct = [...new Map(cookies.map((cookie) => [cookie.raw, cookie])).values()];
  for (const [index, cookie] of distinct.entries()) {
    // The admission's place in the budget goes with the first value; the others count on their own.
    const outcome = await gate.failed(client, index === 0 ? admission : { ...admission, hold: null }, 'cookie', cookie);
    if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  }
  return { kind: 'invalid' };
}
