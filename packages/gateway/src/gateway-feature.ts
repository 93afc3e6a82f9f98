import type { Feature } from '@webui/http-hono';
import { forwardToUpstream } from './forwarding/forward-to-upstream.js';
import { ForwardedPaths, ownEndpoints } from './forwarding/forwarded-paths.js';
import type { AppLogger } from '@webui/http-hono';
import { upstreamChannelRelay } from './relay/upstream-link.js';
import type { UpstreamChannelOptions, UpstreamOptions } from './upstream-options.js';

/**
 * The gateway as one feature (issue 33): what this server does not answer under `upstream.paths` goes to the bot's backend,
 * behind the whole pipeline (its own endpoints never do); with `channel`, the hub relays the domains it does not serve to the
 * bot's channel (`channelRelay(features)`).
 */
export function gatewayFeature(upstream: UpstreamOptions, channel?: { channel: UpstreamChannelOptions; logger: AppLogger }): Feature {
  return {
    name: 'gateway',
    ...(channel ? { relay: upstreamChannelRelay(channel) } : {}),
    forwarding: {
      ...(upstream.assertion ? { assertion: upstream.assertion } : {}),
      paths({ ownPaths, logger, audit, now }) {
        const paths = new ForwardedPaths(upstream, ownEndpoints(ownPaths));
        return {
          guardedPatterns: (apiPrefix) => paths.guardedPatterns(apiPrefix),
          isForwarded: (path) => paths.isForwarded(path),
          isPublic: (path, method) => paths.isPublic(path, method),
          forward: forwardToUpstream({ upstream, logger, audit, now }),
        };
      },
    },
  };
}
