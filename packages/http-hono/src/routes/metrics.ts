import { Hono } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import { requires } from '../middleware/scope-guard.js';

/** The Prometheus text the server's metrics give at a scrape (prom-client's registry in the assembly). */
export type MetricsScrape = () => Promise<{ contentType: string; body: string }>;

/** GET /metrics, behind the whole pipeline, for the access token's session or an admin key only: what a read key may not see. */
export function metricsRoutes(scrape: MetricsScrape) {
  return new Hono<WebuiEnv>().get('/metrics', requires('write'), async (c) => {
    const { contentType, body } = await scrape();
    return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
}
