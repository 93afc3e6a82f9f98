import type { MiddlewareHandler } from 'hono';
import type { AppLogger, WebuiEnv } from '../app-env.js';

/** One debug line per request around `steps`. The path only: a query string may carry a WebSocket ticket. */
export function requestLog(logger: AppLogger, now: () => number, steps: MiddlewareHandler<WebuiEnv>): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    const started = now();
    // A refusal comes back as the return value; a handler's answer is on c.res.
    const answer = await steps(c, next);
    const status = answer instanceof Response ? answer.status : c.res.status;
    logger.debug({ method: c.req.method, path: c.req.path, status, ms: now() - started, ip: c.get('clientIp') }, 'request');
    return answer;
  };
}
