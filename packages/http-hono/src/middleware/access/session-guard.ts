import { DETAILS, type AccessOperations } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { errorBody, errorFields, tooManyAttemptsFields } from '../../answers/error-body.js';
import { jsonAnswer, type JsonAnswer } from '../../answers/plain-answer.js';
import { authenticateRequest, type RequestSession } from '../../session/credentials/request-session.js';

import { methodScopeRefusal } from './scope-guard.js';

// The routes name the per-route scope check from here.
export { requires } from './scope-guard.js';

/**
 * The credentials and the scope steps fused into one: both leave the public paths alone, so those pass one compose level
 * instead of two (docs/performance.md). docs/decisions/0007-default-deny.md default deny: every path not listed as public needs a valid session
 * (the cookie, or a bearer: the access token or an API key), set as `principal`; unknown paths answer 401 before 404.
 * Then its scope must cover the method (methodScopeRefusal); a route that needs more says so with `requires`.
 * `isPublic` may look at the method too: a forwarded public path is public for GET and HEAD only, a route group's
 * `public` route for its own method. On a path `isForwarded` names, an OPTIONS needs what a state change needs.
 */
export function sessionGuard(
  operations: Pick<AccessOperations, 'authenticate'>,
  isPublic: (path: string, method: string) => boolean,
  isForwarded?: (path: string) => boolean,
): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    // A public path ignores credentials entirely: it neither counts a wrong one nor acts for a good one.
    if (isPublic(c.req.path, c.req.method)) return next();
    // The core's authenticate verb decides (what counts as a guess, one credential per request, the ban).
    const { outcome: session } = await authenticateRequest(c, operations);
    if (session.kind !== 'valid') return sessionRefusal(c, session);
    c.set('sessionToken', session.principal.session);
    c.set('principal', session.principal);
    c.set('credentialVia', session.via);
    return methodScopeRefusal(c, session.principal, c.req.method, isForwarded) ?? next();
  };
}

/** The answer to a request whose credentials gave no session: 429 banned, 400 ambiguous, 401 invalid or missing. */
export function sessionRefusal(c: Context, session: Exclude<RequestSession, { kind: 'valid' }>): Response {
  const answer = sessionRefusalAnswer(session);
  return c.json(answer.body, answer.status, answer.headers);
}

/** sessionRefusal's answer as plain values, for a runtime's fast path: the same statuses, bodies and Retry-After. */
export function sessionRefusalAnswer(session: Exclude<RequestSession, { kind: 'valid' }>): JsonAnswer {
  switch (session.kind) {
    case 'refused':
      return jsonAnswer(429, tooManyAttemptsFields(session.retryAfterSeconds, {}, session.scope), {
        'Retry-After': String(session.retryAfterSeconds),
      });
    case 'ambiguous':
      return jsonAnswer(400, errorFields(session.code, DETAILS.ambiguousCredentials[session.code]));
    case 'invalid':
      return session.via === 'bearer'
        ? jsonAnswer(
            401,
            errorFields(
              'invalid_credentials',
              'The bearer credential is not the access token or a valid API key (revoked, expired or mistyped).',
            ),
          )
        : jsonAnswer(
            401,
            errorFields(
              'invalid_session',
              'The session is not valid (the token was changed or the cookie is wrong); log in again with POST /api/webui/auth/verify.',
            ),
          );
    case 'none':
      return jsonAnswer(
        401,
        errorFields(
          'not_authenticated',
          'Login required: POST /api/webui/auth/verify with the access token first, or send Authorization: Bearer <API key>.',
        ),
      );
  }
}

/** 400 for a request that presents more than one credential (already counted as a guess). */
export function ambiguousCredentials(
  c: Context,
  code: keyof typeof DETAILS.ambiguousCredentials,
  extra: Record<string, unknown> = {},
): Response {
  return errorBody(c, 400, code, DETAILS.ambiguousCredentials[code], extra);
}
