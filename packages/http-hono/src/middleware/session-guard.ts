import type { MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import type { AttemptGate } from '../attempt-gate.js';
import { readCookieSession, type SessionTokens } from '../cookie-session.js';
import { errorBody, tooManyAttempts } from '../error-body.js';

/** DESIGN D7 default deny: every path not listed as public needs a valid session; unknown paths answer 401 before 404. */
export function sessionGuard(gate: AttemptGate, tokens: SessionTokens, isPublic: (path: string) => boolean): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    if (isPublic(c.req.path)) return next();
    const session = await readCookieSession(c, gate, tokens);
    switch (session.kind) {
      case 'valid':
        c.set('sessionToken', session.token);
        return next();
      case 'refused':
        return tooManyAttempts(c, session.retryAfterSeconds, {}, session.scope);
      case 'invalid':
        return errorBody(c, 401, 'invalid_session', 'The session is not valid (the token was changed or the cookie is wrong); log in again with POST /api/webui/auth/verify.');
      case 'none':
        return errorBody(c, 401, 'not_authenticated', 'Login required: POST /api/webui/auth/verify with the access token first.');
    }
  };
}
