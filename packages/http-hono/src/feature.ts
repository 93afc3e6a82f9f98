import type { ReadAccess } from './session/request-access.js';
import type { SecurityEventSink } from '@webui/core';
import type { Context, Hono } from 'hono';
import type { BlankSchema, Schema } from 'hono/types';
import type { AppLogger, WebuiEnv } from './app-env.js';
import type { RouteGroup } from './mount/route-group.js';
import type { DocumentedOperation } from './openapi/documented-operation.js';
import type { ChannelDomainPort } from './features/channel/domains/channel-domain-port.js';
import type { AssertionSigner } from './features/auth/caller-identity.js';
import type { ChannelRelay } from './features/channel/hub/channel-relay.js';

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
  /** The operations the OpenAPI document lists for this feature, in order (a group's are derived from its declarations). */
  readonly operations?: readonly DocumentedOperation[];
  /** The channel's domains this feature serves (the hub takes them through `channelDomains(features)`). */
  readonly domains?: readonly ChannelDomainPort[];
  /** Paths outside this server's endpoints that go elsewhere (the gateway's, to the bot's backend); one feature at most. */
  readonly forwarding?: Forwarding;
  /** Where the hub relays the domains it does not serve (the gateway's, to the bot's channel); one feature at most. */
  readonly relay?: ChannelRelay;
}

/** A feature's forwarded paths: what the app asks once every route is mounted, and the handler it ends with. */
export interface Forwarding {
  /** Signs who a request is for, for one method and path: what forward-auth (`/auth/forward`) answers with too. */
  readonly assertion?: AssertionSigner;
  /** The forwarded paths, given the server's own endpoints (full paths, the API's and the mounted groups'), never forwarded. */
  paths(context: ForwardingContext): ForwardedPaths;
}

/** What the app hands a feature's forwarding once its routes are mounted. */
export interface ForwardingContext {
  /** Every path this server answers, with the prefix: never forwarded, whatever the method or a trailing slash. */
  readonly ownPaths: readonly string[];
  readonly logger: AppLogger;
  readonly audit: SecurityEventSink;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /**
   * The pipeline's edge, session and scope steps for a GET or HEAD as one plain function (createReadAccess), for a runtime's
   * fast path that forwards without the app; undefined when it cannot take the app's place (debug logging on).
   */
  readonly readAccess: () => ReadAccess | undefined;
}

/** Which requests a feature forwards; the app's pipeline guards them like the API's own and ends with `forward`. */
export interface ForwardedPaths {
  /** The Hono patterns the API's steps run under: the prefix's, and one per outermost forwarded prefix (none inside another). */
  guardedPatterns(apiPrefix: string): string[];
  /** Whether a request for `path` is forwarded (there only GET and HEAD read, and the body streams unread). */
  isForwarded(path: string): boolean;
  /** Whether `method path`, a forwarded path, answers without a login. */
  isPublic(path: string, method: string): boolean;
  /** The last handler, for a forwarded path no route answered. */
  forward(c: Context<WebuiEnv>): Response | Promise<Response>;
}

/** A feature's route schema, for the app's type. */
export type FeatureSchema<F> = F extends Feature<infer S> ? S : never;

/** A bot's route groups and channel domains as one feature, given to `createWebuiApp({ features })` and `channelDomains` alike. */
export function extensionFeature(name: string, parts: { groups?: readonly RouteGroup[]; domains?: readonly ChannelDomainPort[] }): Feature {
  return { name, ...(parts.groups ? { groups: parts.groups } : {}), ...(parts.domains ? { domains: parts.domains } : {}) };
}
