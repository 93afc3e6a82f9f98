import type { Feature } from '../../feature.js';
import { securityRoutes } from './bans-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** The operator's view of the bans, and lifting one. */
export const bansFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'bans',
    routes: securityRoutes(operations),
    operations: operationsAt('/security/bans', '/security/bans/{key}'),
  }) satisfies Feature<any>;
