import type { Context, MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { createEdgeVerdict, type EdgeRefusal } from '../edge/edge-verdict.js';
import { errorBody } from '../answers/error-body.js';
import { hasUserinfo } from '../edge/request-target.js';
import { requestHeader, type RuntimePort } from '../runtime-port.js';
import type { Refused } from './state-change/origin-guard.js';

const EDGE_REFUSAL: Record<EdgeRefusal, { status: 400 | 403; detail: string }> = {
  ip_not_allowed: { status: 403, detail: 'This address is not in webui.allowed_ips.' },
  duplicate_host: { status: 400, detail: 'The request carries more than one Host header; send one.' },
  host_not_allowed: { status: 403, detail: 'This Host is not served; add it to webui.allowed_hosts if a proxy forwards it.' },
};

/**
 * The edge and the allowlist/Host rules fused into one step, the edge verdict that Node's /auth/check shortcut asks
 * too (createEdgeVerdict): every request passes both, so one compose level is saved on every path (docs/performance.md).
 * It attaches the runtime, marks the answer no-store, sets who the client is (`clientIp`, docs/decisions/0003-client-address.md) and whether it came
 * over HTTPS (`secureTransport`, docs/decisions/0006-session-cookie.md); then refuses a client outside webui.allowed_ips (docs/decisions/0008-allowed-ips.md), two Hosts, or a Host this
 * server does not serve (docs/decisions/0009-csrf-and-dns-rebinding.md, DNS rebinding), on every path; then a target holding a user or password (hasUserinfo).
 * `refused` audits the Host refusals.
 */
export function identifyAndAdmitClient(
  runtime: RuntimePort,
  policy: HttpPolicy,
  warnProxyWithoutForwardedFor: (proxyIp: string) => void,
  refused: Refused,
): MiddlewareHandler<WebuiEnv> {
  const edgeVerdict = createEdgeVerdict(policy, warnProxyWithoutForwardedFor);
  // A web-standard server (Bun, Deno) serving TLS hands the app https:// URLs.
  const isTls = runtime.isTls ?? ((c: Context) => c.req.url.startsWith('https:'));
  return (c, next) => {
    c.set('runtime', runtime);
    // Answers carry session state and, once, a fresh token: never cache them, refusals included. Set before the handler
    // runs, so a response is never rebuilt to add it; static assets that choose their own caching overwrite it.
    if (runtime.presetAnswerHeader?.(c, 'Cache-Control', 'no-store') !== true) c.header('Cache-Control', 'no-store');
    const verdict = edgeVerdict({
      peerAddress: runtime.getConnInfo(c).remote.address,
      isTls: isTls(c),
      header: (name) => requestHeader(c, name),
    });
    c.set('clientIp', verdict.clientIp);
    c.set('secureTransport', verdict.secureTransport);
    const refusal = verdict.refusal;
    if (refusal === undefined) return hasUserinfo(c.req.url) ? Promise.resolve(userinfoRefusal(c)) : next();
    if (refusal === 'host_not_allowed') refused(verdict.clientIp, refusal);
    return Promise.resolve(errorBody(c, EDGE_REFUSAL[refusal].status, refusal, EDGE_REFUSAL[refusal].detail));
  };
}

/** 400 for `GET http://user:pass@host/path`: the userinfo stays out of the answer, as out of the log. */
function userinfoRefusal(c: Context<WebuiEnv>): Response {
  return errorBody(c, 400, 'bad_request', 'The request target names a user or password (user:password@host); send the path alone.');
}
