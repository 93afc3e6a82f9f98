import type { Feature } from '../../feature.js';
import { healthRoutes } from './health-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { HEALTH_OPERATIONS } from './health-operations.js';

/** GET /health: public, for a balancer; degraded while the shared store is lost. */
export const healthFeature = ({ options }: FeatureContext) =>
  ({
    name: 'health',
    routes: healthRoutes(options.policy.serviceName, options.storeAvailable),
    publicPaths: ['/health'],
    operations: HEALTH_OPERATIONS,
  }) satisfies Feature<any>;
