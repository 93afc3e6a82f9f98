import type { Feature } from '../../feature.js';
import { authRoutes } from './auth-routes.js';
import { authForwardRoutes, FORWARD_AUTH_ROUTE } from './auth-forward-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** Login, the session check, forward-auth, the token's changes and logout. */
export const authFeature = ({ options, operations, cookie, refusals }: FeatureContext) =>
  ({
    name: 'auth',
    routes: authRoutes(operations, cookie).route(
      '/',
      authForwardRoutes(operations, options.policy, refusals.refused.bind(refusals), options.upstream?.assertion),
    ),
    // The forward-auth route asks the guard's questions itself (docs/decisions/0027-forward-auth.md).
    publicPaths: ['/auth/verify', '/auth/check', '/auth/logout', FORWARD_AUTH_ROUTE],
    operations: operationsAt('/auth/verify', '/auth/check', FORWARD_AUTH_ROUTE, '/auth/update', '/auth/regenerate', '/auth/logout'),
  }) satisfies Feature<any>;
