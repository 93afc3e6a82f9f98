import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { isAllowedOrigin } from '../host/allowed-origins.js';
import { requestHeader } from '../runtime-port.js';

/**
 * Hono's cors for the allowed origins (docs/decisions/0009-csrf-and-dns-rebinding.md): an allowed origin is echoed with credentials and its preflight
 * answered; a foreign one gets no Access-Control-Allow-Origin. Requests without Origin (scripts) skip it: their
 * answers stay unrebuilt and carry no CORS headers. With `forwarding` (an upstream behind this server, or a bot's
 * route groups mounted), the preflight also allows the methods the bot's own API uses (PUT, PATCH).
 */
export function corsForAllowedOrigins(policy: HttpPolicy, forwarding = false): MiddlewareHandler<WebuiEnv> {
  const honoCors = cors({
    origin: (origin, c) => (isAllowedOrigin(origin, c, policy) ? origin : null),
    credentials: true,
    allowMethods: forwarding ? ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] : ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // An allowed origin (a dashboard dev server) may use a key too; a foreign one's preflight gets no allowance.
    allowHeaders: ['Content-Type', 'Authorization'],
    maxAge: 600,
  });
  return (c, next) => (requestHeader(c, 'origin') === undefined ? next() : honoCors(c, next));
}
