import { namesLoopback, splitHost } from '@webui/http-hono';
import type { WebuiMetrics } from './webui-metrics.js';

const refusal = (status: number, code: string, detail: string): Response =>
  new Response(JSON.stringify({ detail, code }), { status, headers: { 'Content-Type': 'application/json' } });

/**
 * `[webui] metrics_port`: GET /metrics without a credential, for a Prometheus on this machine. The port is bound to 127.0.0.1 only;
 * a Host other than a loopback name is refused, so a web page cannot read it through a DNS-rebinding name.
 */
export function metricsEndpoint(metrics: WebuiMetrics): (request: Request) => Promise<Response> {
  return async (request) => {
    const host = request.headers.get('host');
    if (host === null || !namesLoopback(splitHost(host).name))
      return refusal(403, 'host_not_allowed', 'The metrics port answers loopback names only.');
    if (new URL(request.url).pathname !== '/metrics') return refusal(404, 'not_found', 'The metrics port serves GET /metrics only.');
    if (request.method !== 'GET') return refusal(405, 'method_not_allowed', 'The metrics port serves GET /metrics only.');
    const { contentType, body } = await metrics.scrape();
    return new Response(body, { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } });
  };
}
