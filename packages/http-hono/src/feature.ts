import type { Hono } from 'hono';
import type { BlankSchema, Schema } from 'hono/types';
import type { WebuiEnv } from './app-env.js';
import type { RouteGroup } from './mount/route-group.js';
import type { DocumentedOperation } from './openapi/documented-operation.js';
import type { ChannelDomainPort } from './features/channel/domains/channel-domain-port.js';

/**
 * One feature of the API: what the server's own endpoints (features/*) and a bot's extensions register through alike,
 * as with Fastify's `register` or Hono's `app.route`. Adding one is one folder and one line in the list it is given to.
 * Every path is below the API prefix (`/auth/verify`); each part is optional.
 */
export interface Feature<S extends Schema = BlankSchema> {
  /** Names the feature in errors and in the list; unique by convention. */
  readonly name: string;
  /** Hono routes under the prefix, behind the whole pipeline; the app's type carries them (for `hc<WebuiApp>`). */
  readonly routes?: Hono<WebuiEnv, S>;
  /** A bot's declared route groups (RouteGroup), checked and mounted together (MountError when one cannot be). */
  readonly groups?: readonly RouteGroup[];
  /**
   * Paths that answer without a login, for every method (docs/decisions/0007-default-deny.md): exact, or ending in `/*`
   * for everything below. A route group's `public` routes say so on the route instead, by method.
   */
  readonly publicPaths?: readonly string[];
  /** Paths this server answers even when the routes are not mounted (`/ws` without a WebSocket): never forwarded, never a group's. */
  readonly ownPaths?: readonly string[];
  /** The operations the OpenAPI document lists for this feature, in order (a group's are derived from its declarations). */
  readonly operations?: readonly DocumentedOperation[];
  /** The channel's domains this feature serves (the hub takes them through `channelDomains(features)`). */
  readonly domains?: readonly ChannelDomainPort[];
}

/** A feature's route schema, for the app's type. */
export type FeatureSchema<F> = F extends Feature<infer S> ? S : never;

/** A bot's route groups and channel domains as one feature: what `routeGroups` and a hub's `domains` become. */
export function extensionFeature(name: string, parts: { groups?: readonly RouteGroup[]; domains?: readonly ChannelDomainPort[] }): Feature {
  return { name, ...(parts.groups ? { groups: parts.groups } : {}), ...(parts.domains ? { domains: parts.domains } : {}) };
}
