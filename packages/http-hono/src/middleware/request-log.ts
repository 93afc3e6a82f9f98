import type { MiddlewareHandler } from 'hono';
import type { AppLogger, WebuiEnv } from '../app-env.js';

/**
 * One debug line per request with the status of what answered it, a later step's refusal included. The path only:
 * a query string may carry a WebSocket ticket. Undefined when the logger says debug is off: no step, no clock reads.
 */
export function requestLog(logger: AppLogger, now: () => number): MiddlewareHandler<WebuiEnv> | undefined {
  if (logger.isLevelEnabled?.('debug') === false) return undefined;
  return async (c, next) => {
    const started = now();
    await next();
    logger.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: now() - started, ip: c.get('clientIp') }, 'request');
  };
}
