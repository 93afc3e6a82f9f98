import type { Feature } from '../../feature.js';
import { keysRoutes } from './keys-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { KEYS_OPERATIONS } from './keys-operations.js';

/** API keys for scripts (docs/decisions/0019-api-keys-and-scopes.md). */
export const keysFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'keys',
    routes: keysRoutes(operations),
    operations: KEYS_OPERATIONS,
  }) satisfies Feature<any>;
