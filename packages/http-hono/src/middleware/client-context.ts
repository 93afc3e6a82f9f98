import type { Context, MiddlewareHandler } from 'hono';
import type { ConnectionInfo, HttpPolicy, WebuiEnv } from '../app-env.js';
import { resolveClient } from '../client-ip.js';

/** Sets clientIp and secureTransport for everything after it. */
export function clientContext(policy: HttpPolicy, connection: ConnectionInfo): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    setClientContext(c, policy, connection);
    await next();
  };
}

/** The work of clientContext, for callers that fold several edge steps into one middleware. */
export function setClientContext(c: Context<WebuiEnv>, policy: HttpPolicy, connection: ConnectionInfo): void {
  const client = resolveClient(connection.peerAddress(c), c.req.raw.headers, policy.trustedProxies);
  c.set('clientIp', client.ip);
  c.set('secureTransport', connection.isTls(c) || client.forwardedHttps);
}
