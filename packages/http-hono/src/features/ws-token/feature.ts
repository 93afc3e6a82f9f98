import type { Feature } from '../../feature.js';
import { wsTokenRoutes } from './ws-token-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { WS_TOKEN_OPERATIONS } from './ws-token-operations.js';

/** GET /ws-token: a one-time ticket for the channel; public, it reads the credential itself. */
export const wsTokenFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'ws-token',
    routes: wsTokenRoutes(operations),
    publicPaths: ['/ws-token'],
    operations: WS_TOKEN_OPERATIONS,
  }) satisfies Feature<any>;
