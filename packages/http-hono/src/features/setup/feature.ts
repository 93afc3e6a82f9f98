import type { Feature } from '../../feature.js';
import { setupRoutes } from './setup-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { SETUP_OPERATIONS } from './setup-operations.js';

/** The first-setup state the wizard follows. */
export const setupFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'setup',
    routes: setupRoutes(operations),
    operations: SETUP_OPERATIONS,
  }) satisfies Feature<any>;
