import { AMBIGUOUS_CREDENTIALS_DETAIL, permits, type AccessOperations, type AmbiguousCredentials, type Permission } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import { errorBody, tooManyAttempts } from '../error-body.js';
import { authenticateRequest } from '../request-session.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a request needs by its method alone: reading, or changing state. Routes that need more say so with `requires`. */
export function methodPermission(method: string): Permission {
  return READ_METHODS.has(method) ? 'read' : 'write';
}

/**
 * DESIGN D7 default deny: every path not listed as public needs a valid session (the cookie, or a bearer:
 * the access token or an API key whose scope covers the method); unknown paths answer 401 before 404.
 */
export function sessionGuard(operations: Pick<AccessOperations, 'authenticate'>, isPublic: (path: string) => boolean): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    if (isPublic(c.req.path)) return next();
    // The core's authenticate verb decides (what counts as a guess, one credential per request, the ban).
    const { outcome: session } = await authenticateRequest(c, operations);
    switch (session.kind) {
      case 'valid': {
        c.set('sessionToken', session.principal.session);
        c.set('principal', session.principal);
        c.set('credentialVia', session.via);
        return permits(session.principal, methodPermission(c.req.method)) ? next() : scopeRefusal(c, methodPermission(c.req.method));
      }
      case 'refused':
        return tooManyAttempts(c, session.retryAfterSeconds, {}, session.scope);
      case 'ambiguous':
        return ambiguousCredentials(c, session.code);
      case 'invalid':
        return session.via === 'bearer'
          ? errorBody(c, 401, 'invalid_credentials', 'The bearer credential is not the access token or a valid API key (revoked, expired or mistyped).')
          : errorBody(c, 401, 'invalid_session', 'The session is not valid (the token was changed or the cookie is wrong); log in again with POST /api/webui/auth/verify.');
      case 'none':
        return errorBody(c, 401, 'not_authenticated', 'Login required: POST /api/webui/auth/verify with the access token first, or send Authorization: Bearer <API key>.');
    }
  };
}

/** A route that needs more than its method does (managing keys, changing the token): mounted after the session guard. */
export function requires(permission: Permission): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => (permits(c.get('principal'), permission) ? next() : scopeRefusal(c, permission));
}

const SCOPE_REFUSAL_DETAIL: Record<Permission, string> = {
  read: 'This credential may not read this endpoint.',
  write: 'This API key has the read scope: it may call GET endpoints and open the WebSocket, not change anything. Create an admin key for this.',
  manage_keys: 'Creating and revoking API keys needs the access token (log in, or send the token as the bearer), not an API key.',
  change_token: 'Changing the access token needs the access token itself (log in, or send it as the bearer), not an API key.',
};

function scopeRefusal(c: Context<WebuiEnv>, permission: Permission): Response {
  return errorBody(c, 403, 'insufficient_scope', SCOPE_REFUSAL_DETAIL[permission], { required: permission });
}

/** 400 for a request that presents more than one credential (already counted as a guess). */
export function ambiguousCredentials(c: Context, code: AmbiguousCredentials, extra: Record<string, unknown> = {}): Response {
  return errorBody(c, 400, code, AMBIGUOUS_CREDENTIALS_DETAIL[code], extra);
}
