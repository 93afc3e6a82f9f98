import type { Feature } from '../../feature.js';
import { keysRoutes } from './keys-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** API keys for scripts (docs/decisions/0019-api-keys-and-scopes.md). */
export const keysFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'keys',
    routes: keysRoutes(operations),
    operations: operationsAt('/keys', '/keys/{name}'),
  }) satisfies Feature<any>;
