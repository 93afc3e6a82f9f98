import type { TokenStatus } from '@webui/core';
import type { Context } from 'hono';
import type { AppLogger, WebuiEnv, WebuiServices } from './app-env.js';
import { requestHeader } from './runtime-port.js';
import { sessionCookieCandidates } from './session-cookie.js';

export type CookieSession =
  | { kind: 'none' }
  | { kind: 'valid'; token: string; status: TokenStatus }
  | { kind: 'invalid' }
  | { kind: 'banned'; retryAfterSeconds: number };

/**
 * Checks the bot_session cookie. A wrong value counts as a failed verification (DESIGN D4) and a
 * banned client's cookie is not even compared, so no endpoint is an oracle outside the ban.
 */
export function readCookieSession(c: Context<WebuiEnv>, services: WebuiServices, logger: AppLogger): Promise<CookieSession> {
  return checkSessionCookie(requestHeader(c, 'cookie'), c.get('clientIp'), services, logger);
}

/** readCookieSession over the Cookie header and the client address themselves, for callers without a Hono context. */
export async function checkSessionCookie(cookieHeader: string | undefined, clientIp: string, services: WebuiServices, logger: AppLogger): Promise<CookieSession> {
  const cookies = sessionCookieCandidates(cookieHeader);
  if (cookies.length === 0) return { kind: 'none' };
  const ban = await services.bans.status(clientIp);
  if (ban.banned) return { kind: 'banned', retryAfterSeconds: ban.retryAfterSeconds };
  for (const cookie of cookies) {
    for (const candidate of cookie.tokens) {
      // The status comes with the check: /auth/check needs it, and it costs no second read.
      const status = await services.tokens.statusFor(candidate);
      if (status) return { kind: 'valid', token: candidate, status };
    }
  }
  // Each distinct wrong value counts, so a request carrying many bot_session cookies is as many guesses.
  for (const raw of new Set(cookies.map((cookie) => cookie.raw))) {
    const outcome = await services.bans.recordFailure(clientIp, { cookie: raw });
    if (outcome.banned) {
      if (outcome.justBanned) logger.warn({ ip: clientIp, via: 'cookie' }, 'client banned after repeated failed verifications');
      return { kind: 'banned', retryAfterSeconds: outcome.retryAfterSeconds };
    }
    if (outcome.counted) logger.info({ ip: clientIp, via: 'cookie', remaining: outcome.remainingAttempts }, 'session cookie rejected');
  }
  return { kind: 'invalid' };
}
