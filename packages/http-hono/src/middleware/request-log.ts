import type { MiddlewareHandler } from 'hono';
import type { AppLogger, WebuiEnv } from '../app-env.js';

/** One debug line per request. The path only: a query string may carry a WebSocket ticket. */
export function requestLog(logger: AppLogger, now: () => number): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    const started = now();
    await next();
    logger.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: now() - started, ip: c.get('clientIp') }, 'request');
  };
}
