import type { MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { createClientIdentity } from '../edge-verdict.js';
import { requestHeader, type RuntimePort } from '../runtime-port.js';

/**
 * The edge, first of the request's steps: attaches the runtime, marks the answer no-store and sets who the client
 * is (`clientIp`, DESIGN D3) and whether it came over HTTPS (`secureTransport`, D6) for every later step.
 */
export function identifyClient(runtime: RuntimePort, policy: HttpPolicy, warnProxyWithoutForwardedFor: (proxyIp: string) => void): MiddlewareHandler<WebuiEnv> {
  const identify = createClientIdentity(policy, warnProxyWithoutForwardedFor);
  const isTls = runtime.isTls ?? (() => false);
  return (c, next) => {
    c.set('runtime', runtime);
    // Answers carry session state and, once, a fresh token: never cache them, refusals included. Set before the handler
    // runs, so a response is never rebuilt to add it; static assets that choose their own caching overwrite it.
    if (runtime.presetAnswerHeader?.(c, 'Cache-Control', 'no-store') !== true) c.header('Cache-Control', 'no-store');
    const client = identify({ peerAddress: runtime.getConnInfo(c).remote.address, isTls: isTls(c), header: (name) => requestHeader(c, name) });
    c.set('clientIp', client.clientIp);
    c.set('secureTransport', client.secureTransport);
    return next();
  };
}
