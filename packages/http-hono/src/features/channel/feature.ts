import type { Feature } from '../../feature.js';
import { WS_ROUTE, wsRoutes } from './ws-routes.js';
import type { FeatureContext } from '../feature-context.js';
import { CHANNEL_OPERATIONS } from './channel-operations.js';

/**
 * The WebSocket channel's handshake at /ws (docs/decisions/0013-websocket-channel.md): public, the ticket is the credential;
 * the path is this server's own even when the runtime cannot upgrade (then it answers 404). Its domains are the hub's.
 */
export const channelFeature = ({ options, operations, refusals }: FeatureContext): Feature => {
  const socket = options.webSocket;
  return {
    name: 'channel',
    ...(socket
      ? {
          routes: wsRoutes(operations, options.policy, socket.hub, socket.upgrade, (address) =>
            refusals.refused(address, 'origin_not_allowed'),
          ),
        }
      : {}),
    publicPaths: [WS_ROUTE],
    operations: CHANNEL_OPERATIONS,
  };
};
