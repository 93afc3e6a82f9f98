import type { Principal } from '@webui/core';
import type { Context, Hono } from 'hono';
import type * as v from 'valibot';
import type { WebuiEnv } from '../app-env.js';
import type { HandlerLog } from './handler-log.js';

/** What a caller's credential must cover: `read` (any session or key) or `admin` (the access token or an admin key). */
export type RouteScope = 'read' | 'admin';

/** The methods a route group declares routes for; a GET route answers HEAD too. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The fields a `bot_action` audit line may carry beside its action: plain values only. */
export type AuditDetails = Record<string, string | number | boolean | null>;

/** How a route is guarded and described; a route without options needs a login and the scope its method implies. */
export interface RouteOptions<Body extends v.GenericSchema | undefined = undefined> {
  /** The one explicit opt-out of login; the route stays behind the edge (allowed IPs, Host), CORS and CSRF for unsafe methods. */
  public?: true;
  /** Default: GET -> `read`, any other method -> `admin`; `admin` on a GET that reveals secrets. Not with `public`. */
  scope?: RouteScope;
  /** The JSON body, validated before the handler runs (415, 400, 413, 422 with the error body (docs/decisions/0001-error-bodies.md) otherwise); not on a GET. */
  body?: Body;
  /** The 200 answer's body, for the OpenAPI document only. */
  response?: v.GenericSchema;
  summary?: string;
  description?: string;
  /** The OpenAPI tag; the group's path below the prefix by default. */
  tag?: string;
}

/** What a mounted route's handler gets beside Hono's context. */
export interface RouteRequest<BodyOut = undefined> {
  /** The validated body; undefined when the route declares no body schema. */
  body: BodyOut;
  /** Who called: the access token's session or an API key (its name and scope); null on a public route. */
  principal: Principal | null;
  /** Writes a `bot_action` security event (data/audit.log, the `security` domain): who, method, path, action, details. */
  audit(action: string, details?: AuditDetails): void;
  /** The bot's logger (module `bot`): the log view and the process output. */
  log: HandlerLog;
}

export type RouteHandler<BodyOut = undefined> = (c: Context<WebuiEnv>, request: RouteRequest<BodyOut>) => Response | Promise<Response>;

type BodyOf<Body> = Body extends v.GenericSchema ? v.InferOutput<Body> : undefined;

/** Declares one route: `(path, handler)` or `(path, options, handler)`; returns the group, so declarations chain. */
export interface RouteDeclarer {
  (path: string, handler: RouteHandler): RouteGroup;
  <Body extends v.GenericSchema | undefined = undefined>(
    path: string,
    options: RouteOptions<Body>,
    handler: RouteHandler<BodyOf<Body>>,
  ): RouteGroup;
}

/** One route as declared, checked and mounted when the app is built. */
export interface DeclaredRoute {
  method: RouteMethod;
  /** Inside the group: '/' for the group's own path, `:name` for a parameter. */
  path: string;
  options: RouteOptions<v.GenericSchema | undefined>;
  handler: RouteHandler<unknown>;
}

/**
 * A bot's routes under one path of the API (`/api/webui/config`), mounted by createWebuiApp behind the whole pipeline:
 * a login is needed unless a route says `public`, and the scope follows the method unless a route says more.
 * Nothing is checked here; a route group that cannot be mounted is a MountError when the app is built.
 */
export class RouteGroup {
  readonly #routes: DeclaredRoute[] = [];

  readonly get: RouteDeclarer = this.#declarer('GET');
  readonly post: RouteDeclarer = this.#declarer('POST');
  readonly put: RouteDeclarer = this.#declarer('PUT');
  readonly patch: RouteDeclarer = this.#declarer('PATCH');
  readonly delete: RouteDeclarer = this.#declarer('DELETE');

  constructor(
    /** The full path, prefix included: `/api/webui/config`. */
    readonly path: string,
    /**
     * An existing Hono app mounted whole at `path` with the default rules: login needed, scope by method. A
     * `new Hono<WebuiEnv>()` reads the caller with `c.get('principal')`; a plain `new Hono()` is taken too.
     */
    readonly app?: Hono<WebuiEnv> | Hono,
  ) {}

  /** The routes declared so far, in order. */
  get routes(): readonly DeclaredRoute[] {
    return this.#routes;
  }

  #declarer(method: RouteMethod): RouteDeclarer {
    return ((
      path: string,
      optionsOrHandler: RouteOptions<v.GenericSchema | undefined> | RouteHandler<unknown>,
      handler?: RouteHandler<unknown>,
    ) => {
      const [options, handle] = typeof optionsOrHandler === 'function' ? [{}, optionsOrHandler] : [optionsOrHandler, handler];
      // A JavaScript caller can leave the handler out; that is a mount error later, not a crash on the first request.
      this.#routes.push({ method, path, options, handler: handle as RouteHandler<unknown> });
      return this;
    }) as RouteDeclarer;
  }
}
