import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { STORE_RETRY_AFTER_SECONDS } from '../../answers/error-body.js';
import type { WireBody } from '../../wire-body.js';

const DEGRADED_DETAIL = 'The state store cannot be reached; logins and changes are refused until it is back.';

/** `storeAvailable` says whether the state store answers; without it the store is in this process and always does. */
export function healthRoutes(serviceName: string, storeAvailable: () => boolean = () => true) {
  return new Hono<WebuiEnv>().get('/health', (c) => {
    if (storeAvailable()) return c.json({ status: 'healthy', service: serviceName } satisfies WireBody<'HealthResponse'>, 200);
    // A balancer's health check takes this instance out while it cannot decide logins (docs/decisions/0016-shared-store-fails-closed.md).
    c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    const degraded: WireBody<'HealthDegradedBody'> = {
      status: 'degraded',
      service: serviceName,
      store: 'unavailable',
      detail: DEGRADED_DETAIL,
      code: 'store_unavailable',
    };
    return c.json(degraded, 503);
  });
}
