import type { AppLogger, WebuiServices } from './app-env.js';
import { checkSessionCookie } from './cookie-session.js';
import { tooManyAttemptsFields } from './error-body.js';
import { jsonAnswer, type JsonAnswer } from './plain-answer.js';

/**
 * The whole answer to GET /auth/check (specification "Check login"; while banned a 429, DESIGN D2)
 * for a client and its Cookie header: the one implementation the Hono route and a runtime's fast path both call.
 */
export async function answerSessionCheck(cookieHeader: string | undefined, clientIp: string, services: WebuiServices, logger: AppLogger): Promise<JsonAnswer> {
  const session = await checkSessionCookie(cookieHeader, clientIp, services, logger);
  switch (session.kind) {
    case 'banned':
      return jsonAnswer(429, tooManyAttemptsFields(session.retryAfterSeconds, { authenticated: false }), { 'Retry-After': String(session.retryAfterSeconds) });
    case 'valid':
      return jsonAnswer(200, { authenticated: true, token_source: session.status.tokenSource, requires_custom_token: session.status.requiresCustomToken });
    default:
      return jsonAnswer(200, { authenticated: false });
  }
}
