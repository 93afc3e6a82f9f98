import type { AttemptClient, AttemptGate } from './attempt-gate.js';
import { checkSessionCookie, type SessionTokens } from './cookie-session.js';
import { tooManyAttemptsFields } from './error-body.js';
import { jsonAnswer, type JsonAnswer } from './plain-answer.js';

/**
 * The whole answer to GET /auth/check (specification "Check login"; while banned a 429, DESIGN D2)
 * for a client and its Cookie header: the one implementation the Hono route and a runtime's fast path both call.
 */
export async function answerSessionCheck(cookieHeader: string | undefined, client: AttemptClient, gate: AttemptGate, tokens: SessionTokens): Promise<JsonAnswer> {
  const session = await checkSessionCookie(cookieHeader, client, gate, tokens);
  switch (session.kind) {
    case 'refused':
      return jsonAnswer(429, tooManyAttemptsFields(session.retryAfterSeconds, { authenticated: false }, session.scope), { 'Retry-After': String(session.retryAfterSeconds) });
    case 'valid':
      return jsonAnswer(200, { authenticated: true, token_source: session.status.tokenSource, requires_custom_token: session.status.requiresCustomToken });
    default:
      return jsonAnswer(200, { authenticated: false });
  }
}
