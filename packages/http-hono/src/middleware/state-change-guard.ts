import type { MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { limitBody } from './body-limit.js';
import { originRefusal, type Refused } from './origin-guard.js';
import { isSafeMethod } from './safe-methods.js';

/**
 * Two steps fused into one, CSRF then the body limit: both leave GET, HEAD and OPTIONS alone, so a read passes one
 * compose level instead of two (each level is measurable on the hot paths: README, Performance). A state change from
 * a foreign origin or site is refused (originRefusal, DESIGN D9) before its body is looked at; then bodies over
 * 16 KiB get 413 (limitBody, D14), except on the paths `streamsBody` names (forwarded to the upstream, their bodies
 * stream through unread), which get the CSRF check only.
 */
export function guardStateChanges(
  policy: HttpPolicy,
  refused: Refused,
  streamsBody?: (path: string) => boolean,
): MiddlewareHandler<WebuiEnv> {
  const limit = limitBody();
  return (c, next) => {
    if (isSafeMethod(c.req.method)) return next();
    const refusal = originRefusal(c, policy, refused);
    if (refusal) return Promise.resolve(refusal);
    return streamsBody?.(c.req.path) ? next() : limit(c, next);
  };
}
