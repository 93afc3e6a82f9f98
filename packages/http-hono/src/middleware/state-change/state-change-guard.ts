import type { MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../../app-env.js';
import { limitBody } from './body-limit.js';
import { stateChangeOriginRefusal, type Refused } from './origin-guard.js';
import { readsOnly } from './safe-methods.js';

/**
 * Two steps fused into one, CSRF then the body limit: both leave GET, HEAD and OPTIONS alone, so a read passes one
 * compose level instead of two (each level is measurable on the hot paths: docs/performance.md). A state change from
 * a foreign origin or site is refused (stateChangeOriginRefusal, docs/decisions/0009-csrf-and-dns-rebinding.md) before its body is looked at; then bodies over
 * 16 KiB get 413 (limitBody, docs/decisions/0014-bounded-memory.md), except on the paths `isForwarded` names (forwarded to the upstream, their bodies
 * stream through unread), which get the CSRF check only, and an OPTIONS among them too (readsOnly).
 */
export function guardStateChanges(
  policy: HttpPolicy,
  refused: Refused,
  isForwarded?: (path: string) => boolean,
): MiddlewareHandler<WebuiEnv> {
  const limit = limitBody();
  return (c, next) => {
    if (readsOnly(c.req.method, c.req.path, isForwarded)) return next();
    const refusal = stateChangeOriginRefusal(c, policy, refused);
    if (refusal) return Promise.resolve(refusal);
    return isForwarded?.(c.req.path) ? next() : limit(c, next);
  };
}
