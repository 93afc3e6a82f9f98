import type { Feature } from '../../feature.js';
import { METRICS_OPERATION, metricsRoutes } from './metrics-routes.js';
import type { FeatureContext } from '../feature-context.js';

/** GET /metrics for the token's session or an admin key (docs/decisions/0032-metrics-access.md); absent without a scrape. */
export const metricsFeature = ({ options }: FeatureContext): Feature =>
  options.metrics ? { name: 'metrics', routes: metricsRoutes(options.metrics), operations: [METRICS_OPERATION] } : { name: 'metrics' };
