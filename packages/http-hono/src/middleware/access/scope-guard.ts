import { permits, type Permission, type Principal } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { errorFields } from '../../answers/error-body.js';
import { jsonAnswer, type JsonAnswer } from '../../answers/plain-answer.js';
import { readsOnly } from '../state-change/safe-methods.js';

/**
 * What a request needs by its method alone: reading, or changing state (an OPTIONS too on a path `isForwarded` names:
 * readsOnly). Routes that need more say so with `requires`.
 */
export function methodPermission(method: string, path = '', isForwarded?: (path: string) => boolean): Permission {
  return readsOnly(method, path, isForwarded) ? 'read' : 'admin';
}

/**
 * What a permission asks of the caller, as refusals (`required`) and the OpenAPI document (`x-webui-scope`) name it:
 * the scope of an API key that covers it, or the access token itself, which no key's scope covers
 * (docs/decisions/0039-the-api-names-its-scopes.md).
 */
export type RequiredScope = 'read' | 'admin' | 'access_token';

export function requiredScope(permission: Permission): RequiredScope {
  return permission === 'read' || permission === 'admin' ? permission : 'access_token';
}

/** The scope step, which the session guard runs right after the credentials: 403 when the principal's scope does not cover the method. */
export function methodScopeRefusal(
  c: Context<WebuiEnv>,
  principal: Principal,
  method: string = c.req.method,
  isForwarded?: (path: string) => boolean,
): Response | undefined {
  return permissionRefusal(c, principal, methodPermission(method, c.req.path, isForwarded));
}

/** 403 insufficient_scope when the principal's scope does not cover `permission`, for a step that already holds the principal. */
export function permissionRefusal(c: Context<WebuiEnv>, principal: Principal, permission: Permission): Response | undefined {
  return permits(principal, permission) ? undefined : scopeRefusal(c, permission);
}

/** A route that needs more than its method does (managing keys, changing the token): mounted after the session guard. */
export function requires(permission: Permission): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => permissionRefusal(c, c.get('principal'), permission) ?? next();
}

const SCOPE_REFUSAL_DETAIL: Record<Permission, string> = {
  read: 'This credential may not read this endpoint.',
  admin:
    'This needs the admin scope, and this API key has the read scope: it may read and open the WebSocket, not change anything. ' +
    'Use an admin key or the access token.',
  manage_keys: 'Creating and revoking API keys needs the access token (log in, or send the token as the bearer), not an API key.',
  change_token: 'Changing the access token needs the access token itself (log in, or send it as the bearer), not an API key.',
};

function scopeRefusal(c: Context<WebuiEnv>, permission: Permission): Response {
  const answer = scopeRefusalAnswer(permission);
  return c.json(answer.body, answer.status);
}

/** The 403 insufficient_scope answer as plain values, for a runtime's fast path. */
export function scopeRefusalAnswer(permission: Permission): JsonAnswer {
  return jsonAnswer(403, errorFields('insufficient_scope', SCOPE_REFUSAL_DETAIL[permission], { required: requiredScope(permission) }));
}
