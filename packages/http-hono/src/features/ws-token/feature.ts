import type { Feature } from '../../feature.js';
import { wsTokenRoutes } from './ws-token-routes.js';
import { operationsAt, type FeatureContext } from '../feature-context.js';

/** GET /ws-token: a one-time ticket for the channel; public, it reads the credential itself. */
export const wsTokenFeature = ({ operations }: FeatureContext) =>
  ({
    name: 'ws-token',
    routes: wsTokenRoutes(operations),
    publicPaths: ['/ws-token'],
    operations: operationsAt('/ws-token'),
  }) satisfies Feature<any>;
