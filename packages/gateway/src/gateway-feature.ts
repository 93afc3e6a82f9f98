import type { Feature } from '@webui/http-hono';
import { forwardToUpstream } from './forwarding/forward-to-upstream.js';
import { ForwardedPaths, ownEndpoints } from './forwarding/forwarded-paths.js';
import { createForwardShortcut, type ForwardShortcut } from './forwarding/forward-shortcut.js';
import { UpstreamWarnings } from './forwarding/upstream-failure.js';
import type { AppLogger } from '@webui/http-hono';
import { upstreamChannelRelay } from './relay/upstream-link.js';
import type { UpstreamChannelOptions, UpstreamOptions } from './upstream-options.js';

/** The gateway's feature, and its forwarding rules for a runtime's fast path once the app is built. */
export interface GatewayFeature extends Feature {
  /**
   * The rules of a forwarded GET or HEAD as plain functions (createForwardShortcut), for a runtime that forwards without the
   * app; undefined before the app is built, with debug logging on, or for an upstream its client cannot reach plainly.
   */
  forwardShortcut(): ForwardShortcut | undefined;
}

/**
 * The gateway as one feature (issue 33): what this server does not answer under `upstream.paths` goes to the bot's backend,
 * behind the whole pipeline (its own endpoints never do); with `channel`, the hub relays the domains it does not serve to the
 * bot's channel (`channelRelay(features)`).
 */
export function gatewayFeature(
  upstream: UpstreamOptions,
  channel?: { channel: UpstreamChannelOptions; logger: AppLogger },
): GatewayFeature {
  let shortcut: () => ForwardShortcut | undefined = () => undefined;
  return {
    name: 'gateway',
    ...(channel ? { relay: upstreamChannelRelay(channel) } : {}),
    forwarding: {
      ...(upstream.assertion ? { assertion: upstream.assertion } : {}),
      paths({ ownPaths, logger, audit, now, readAccess }) {
        const paths = new ForwardedPaths(upstream, ownEndpoints(ownPaths));
        // One set of once-a-minute warnings for both ways a forward goes.
        const warnings = new UpstreamWarnings(logger, now);
        shortcut = () => {
          const access = readAccess();
          return access && createForwardShortcut({ upstream, paths, access, warnings, logger, audit });
        };
        return {
          guardedPatterns: (apiPrefix) => paths.guardedPatterns(apiPrefix),
          isForwarded: (path) => paths.isForwarded(path),
          isPublic: (path, method) => paths.isPublic(path, method),
          forward: forwardToUpstream({ upstream, logger, audit, now, warnings }),
        };
      },
    },
    forwardShortcut: () => shortcut(),
  };
}
