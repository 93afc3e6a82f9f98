import type { Feature } from '../../feature.js';
import { authRoutes } from './auth-routes.js';
import { authForwardRoutes, FORWARD_AUTH_ROUTE } from './auth-forward-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { AUTH_OPERATIONS } from './auth-operations.js';

/** Login, the session check, forward-auth, the token's changes and logout. */
export const authFeature = ({ options, operations, cookie, refusals, assertion }: FeatureContext) =>
  ({
    name: 'auth',
    routes: authRoutes(operations, cookie).route(
      '/',
      authForwardRoutes(operations, options.policy, refusals.refused.bind(refusals), assertion),
    ),
    // The forward-auth route asks the guard's questions itself (docs/decisions/0027-forward-auth.md).
    publicPaths: ['/auth/verify', '/auth/check', '/auth/logout', FORWARD_AUTH_ROUTE],
    operations: AUTH_OPERATIONS,
  }) satisfies Feature<any>;
