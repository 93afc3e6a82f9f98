import { permits, type Permission } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a request needs by its method alone: reading, or changing state. Routes that need more say so with `requires`. */
export function methodPermission(method: string): Permission {
  return READ_METHODS.has(method) ? 'read' : 'write';
}

/**
 * The step after the session guard: the principal's scope must cover the method (a read-scoped API key may not
 * change anything); 403 insufficient_scope otherwise. Public paths have no principal and pass.
 */
export function methodScopeGuard(isPublic: (path: string) => boolean): MiddlewareHandler<WebuiEnv> {
  return (c, next) => {
    if (isPublic(c.req.path)) return next();
    const permission = methodPermission(c.req.method);
    return permits(c.get('principal'), permission) ? next() : Promise.resolve(scopeRefusal(c, permission));
  };
}

/** A route that needs more than its method does (managing keys, changing the token): mounted after the scope guard. */
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
