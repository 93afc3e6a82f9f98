import type { Context } from 'hono';
import type { ConnectionInfo, HttpPolicy, WebuiEnv } from '../app-env.js';
import { resolveClient } from '../client-ip.js';
import { requestHeader } from '../request-header.js';

/** Sets clientIp and secureTransport (DESIGN D3, D6) for everything after the edge step. */
export function setClientContext(c: Context<WebuiEnv>, policy: HttpPolicy, connection: ConnectionInfo): void {
  const client = resolveClient(connection.peerAddress(c), (name) => requestHeader(c, name), policy.trustedProxies);
  c.set('clientIp', client.ip);
  c.set('secureTransport', connection.isTls(c) || client.forwardedHttps);
}
