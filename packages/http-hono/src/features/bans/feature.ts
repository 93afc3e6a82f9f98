import type { Feature } from '../../feature.js';
import { securityRoutes } from './bans-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { BANS_OPERATIONS } from './bans-operations.js';

/** The operator's view of the bans, and lifting one. */
export const bansFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'bans',
    routes: securityRoutes(operations),
    operations: BANS_OPERATIONS,
  }) satisfies Feature<any>;
