import * as v from 'valibot';
import { ErrorBody } from '../../schemas/error.js';

export const HealthResponse = v.strictObject({ status: v.literal('healthy'), service: v.string() });

/** docs/decisions/0016-shared-store-fails-closed.md: a balancer's health check takes the instance out while its shared store is unreachable. */
export const HealthDegradedBody = v.strictObject({
  ...ErrorBody.entries,
  code: v.literal('store_unavailable'),
  status: v.literal('degraded'),
  service: v.string(),
  store: v.literal('unavailable'),
});
