import type { AttemptClient, AttemptGate } from './attempt-gate.js';
import { errorFields, tooManyAttemptsFields } from './error-body.js';
import { jsonAnswer, type JsonAnswer } from './plain-answer.js';
import { AMBIGUOUS_CREDENTIALS_DETAIL } from './ambiguous-credentials.js';
import { checkRequestSession, type PresentedCredentials, type SessionAuthority } from './request-session.js';

/**
 * The whole answer to GET /auth/check (specification "Check login"; while banned a 429, DESIGN D2)
 * for a client and its credentials: the one implementation the Hono route and a runtime's fast path both call.
 * A bearer key is reported with its name and scope.
 */
export async function answerSessionCheck(presented: PresentedCredentials, client: AttemptClient, gate: AttemptGate, authority: SessionAuthority): Promise<JsonAnswer> {
  const session = await checkRequestSession(presented, client, gate, authority);
  switch (session.kind) {
    case 'ambiguous':
      // A bad request (D1), and not authenticated for a client that reads only that field.
      return jsonAnswer(400, errorFields(session.code, AMBIGUOUS_CREDENTIALS_DETAIL[session.code], { authenticated: false }));
    case 'refused':
      return jsonAnswer(429, tooManyAttemptsFields(session.retryAfterSeconds, { authenticated: false }, session.scope), { 'Retry-After': String(session.retryAfterSeconds) });
    case 'valid': {
      const { principal } = session;
      if (principal.kind === 'token') return jsonAnswer(200, { authenticated: true, token_source: principal.status.tokenSource, requires_custom_token: principal.status.requiresCustomToken });
      const status = await authority.tokens.status();
      return jsonAnswer(200, { authenticated: true, token_source: status.tokenSource, requires_custom_token: status.requiresCustomToken, key: { name: principal.name, scope: principal.scope } });
    }
    default:
      return jsonAnswer(200, { authenticated: false });
  }
}
