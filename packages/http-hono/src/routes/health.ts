import { Hono } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import { errorFields, STORE_RETRY_AFTER_SECONDS } from '../error-body.js';

/** `storeAvailable` says whether the state store answers; without it the store is in this process and always does. */
export function healthRoutes(serviceName: string, storeAvailable: () => boolean = () => true) {
  return new Hono<WebuiEnv>().get('/health', (c) => {
    if (storeAvailable()) return c.json({ status: 'healthy', service: serviceName });
    // A balancer's health check takes this instance out while it cannot decide logins (DESIGN D16).
    c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    return c.json(errorFields('store_unavailable', 'The state store cannot be reached; logins and changes are refused until it is back.', { status: 'degraded', service: serviceName, store: 'unavailable' }), 503);
  });
}
