import type { Hono } from 'hono';
import type { WebuiEnv } from './app-env.js';
import type { Feature, Forwarding } from './feature.js';
import { MountError } from './mount/mount-error.js';
import type { DocumentedOperation } from './openapi/documented-operation.js';
import type { RouteGroup } from './mount/route-group.js';
import type { ChannelDomainPort } from './features/channel/domains/channel-domain-port.js';
import type { ChannelRelay } from './features/channel/hub/channel-relay.js';

/**
 * What the app needs to know of its features, each computed once here from the list, in the list's order: whether a path
 * is public, which paths are the server's own, the OpenAPI operations and the route groups. The hub takes the channel's
 * domains and relay from the same list (`channelDomains`, `channelRelay`), and the app its forwarding (`featureForwarding`).
 */
export class FeatureSet {
  /** Whether a path below the prefix answers without a login: an exact public path, or one under a `/*` public prefix. */
  readonly isPublicPath: (path: string) => boolean;
  readonly groups: readonly RouteGroup[];

  constructor(readonly features: readonly Feature[]) {
    const publicPaths = features.flatMap((feature) => feature.publicPaths ?? []);
    const exact = new Set(publicPaths.filter((path) => !path.endsWith('/*')));
    const prefixes = publicPaths.filter((path) => path.endsWith('/*')).map((path) => path.slice(0, -1));
    this.isPublicPath =
      prefixes.length === 0
        ? (path) => exact.has(path)
        : prefixes.length === 1
          ? (
              (prefix) => (path: string) =>
                exact.has(path) || path.startsWith(prefix)
            )(prefixes[0]!)
          : (path) => exact.has(path) || prefixes.some((prefix) => path.startsWith(prefix));
    this.groups = features.flatMap((feature) => feature.groups ?? []);
  }

  /**
   * The paths the features' routes answer, below the prefix: their public paths (answered even when not mounted, as `/ws`
   * without a WebSocket) and every route's path; middleware (`use`, any method, a `*` path) says nothing about which paths answer.
   */
  ownPaths(): string[] {
    return this.features.flatMap((feature) => [...(feature.publicPaths ?? []), ...(feature.routes ? routePaths(feature.routes) : [])]);
  }

  /** The operations the features document, in order; `mounted` (a group's, derived once mounted) after them. */
  operations(mounted: readonly DocumentedOperation[] = []): DocumentedOperation[] {
    return [...this.features.flatMap((feature) => feature.operations ?? []), ...mounted];
  }
}

/** The one forwarding of a feature list (the gateway's): its forwarded paths and its assertion signer; a MountError for two. */
export function featureForwarding(features: readonly Feature[]): Forwarding | undefined {
  const forwarding = features.filter((feature) => feature.forwarding);
  if (forwarding.length > 1) throw new MountError(`feature ${forwarding[1]!.name}`, 'another feature forwards paths already');
  return forwarding[0]?.forwarding;
}

/** The one relay of a feature list (the gateway's), what a WsHub relays the domains it does not serve to; a MountError for two. */
export function channelRelay(features: readonly Feature[]): ChannelRelay | undefined {
  const relaying = features.filter((feature) => feature.relay);
  if (relaying.length > 1) throw new MountError(`feature ${relaying[1]!.name}`, 'another feature relays the channel already');
  return relaying[0]?.relay;
}

/** The channel's domains of a feature list, in order: what a WsHub serves besides `logs`. */
export function channelDomains(features: readonly Feature[]): ChannelDomainPort[] {
  return features.flatMap((feature) => feature.domains ?? []);
}

function routePaths(routes: Hono<WebuiEnv>): string[] {
  return routes.routes.filter((route) => route.method !== 'ALL' || !route.path.endsWith('*')).map((route) => route.path);
}
