import type { Feature } from '../../feature.js';
import { setupRoutes } from './setup-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** The first-setup state the wizard follows. */
export const setupFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'setup',
    routes: setupRoutes(operations),
    operations: operationsAt('/setup/status', '/setup/complete', '/setup/reset'),
  }) satisfies Feature<any>;
