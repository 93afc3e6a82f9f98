import type { Feature } from '../../feature.js';
import { healthRoutes } from './health-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** GET /health: public, for a balancer; degraded while the shared store is lost. */
export const healthFeature = ({ options }: FeatureContext) =>
  ({
    name: 'health',
    routes: healthRoutes(options.policy.serviceName, options.storeAvailable),
    publicPaths: ['/health'],
    operations: operationsAt('/health'),
  }) satisfies Feature<any>;
