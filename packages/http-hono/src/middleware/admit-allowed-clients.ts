import type { MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { createEdgeAdmission, type EdgeRefusal } from '../edge-verdict.js';
import { errorBody } from '../error-body.js';
import type { RefusalReason } from '../refusal-audit.js';
import { requestHeader } from '../runtime-port.js';

const EDGE_REFUSAL: Record<EdgeRefusal, { status: 400 | 403; detail: string }> = {
  ip_not_allowed: { status: 403, detail: 'This address is not in webui.allowed_ips.' },
  duplicate_host: { status: 400, detail: 'The request carries more than one Host header; send one.' },
  host_not_allowed: { status: 403, detail: 'This Host is not served; add it to webui.allowed_hosts if a proxy forwards it.' },
};

/**
 * DESIGN D8 and D9 on every path: a client outside webui.allowed_ips, a request with two Hosts, or a Host this
 * server does not serve (DNS rebinding) is refused before anything else runs; `refused` audits the Host refusals.
 */
export function admitAllowedClientsAndHosts(policy: HttpPolicy, refused: (address: string, reason: RefusalReason) => void): MiddlewareHandler<WebuiEnv> {
  const admission = createEdgeAdmission(policy);
  return (c, next) => {
    const clientIp = c.get('clientIp');
    const refusal = admission(clientIp, requestHeader(c, 'host') ?? '');
    if (refusal === undefined) return next();
    if (refusal === 'host_not_allowed') refused(clientIp, refusal);
    return Promise.resolve(errorBody(c, EDGE_REFUSAL[refusal].status, refusal, EDGE_REFUSAL[refusal].detail));
  };
}
