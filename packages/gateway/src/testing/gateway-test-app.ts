// http-hono's test app with the gateway registered as its one feature, for the forwarding tests.
import { createTestApp as createHttpTestApp } from '@webui/http-hono/testing';
import { gatewayFeature } from '../gateway-feature.js';
import type { UpstreamOptions } from '../upstream-options.js';

export * from '@webui/http-hono/testing';

/** The test app of @webui/http-hono/testing; with `upstream`, the gateway's feature after the others. */
export function createTestApp(options: Parameters<typeof createHttpTestApp>[0] & { upstream?: UpstreamOptions } = {}) {
  const { upstream, ...rest } = options;
  return createHttpTestApp({ ...rest, features: [...(rest.features ?? []), ...(upstream ? [gatewayFeature(upstream)] : [])] });
}
