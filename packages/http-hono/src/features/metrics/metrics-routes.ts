import { Hono } from 'hono';
import * as v from 'valibot';
import type { WebuiEnv } from '../../app-env.js';
import { requires } from '../../middleware/access/scope-guard.js';
import { banned, unauthenticated, type DocumentedOperation } from '../../openapi/documented-operation.js';
import { ErrorBody } from '../../schemas.js';

/** The Prometheus text the server's metrics give at a scrape (prom-client's registry in the assembly). */
export type MetricsScrape = () => Promise<{ contentType: string; body: string }>;

/** GET /metrics as the OpenAPI document lists it, when the app serves it. */
export const METRICS_OPERATION: DocumentedOperation = {
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics',
  description:
    'Logins and failures by outcome, bans, the global failure budget, sockets and subscriptions by domain, tickets, store latency and ' +
    'availability, forwarded requests by status; no label carries an address or a secret. ' +
    '`[webui] metrics_port` serves the same text on loopback without a credential.',
  access: 'session',
  needs: 'admin',
  tag: 'metrics',
  responses: {
    200: {
      description: 'The Prometheus text exposition format.',
      schema: v.pipe(v.string(), v.description('text/plain; version=0.0.4')),
      mediaType: 'text/plain',
    },
    401: unauthenticated,
    403: { description: 'A read key (`insufficient_scope`, required `admin`); or a refused Origin or Host.', schema: ErrorBody },
    429: banned,
  },
};

/** GET /metrics, behind the whole pipeline, for the access token's session or an admin key only: what a read key may not see. */
export function metricsRoutes(scrape: MetricsScrape) {
  return new Hono<WebuiEnv>().get('/metrics', requires('admin'), async (c) => {
    const { contentType, body } = await scrape();
    return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
}
