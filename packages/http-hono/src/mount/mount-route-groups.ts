import type { Principal, SecurityEventSink } from '@webui/core';
import type { Context, Handler, Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { WebuiEnv } from '../app-env.js';
import { readJsonBody } from '../answers/json-body.js';
import { permissionRefusal } from '../middleware/access/scope-guard.js';
import { callerIdentity } from '../features/auth/caller-identity.js';
import { MountError } from './mount-error.js';
import { groupPathProblem, pathsOverlap, routePathProblem } from './mount-paths.js';
import type { HandlerLog } from './handler-log.js';
import type { AuditDetails, DeclaredRoute, RouteGroup, RouteRequest } from './route-group.js';

/** A declared route as mounted: its full path (prefix included, Hono's `:name` form) and its group. */
export interface MountedRoute extends DeclaredRoute {
  fullPath: string;
  group: RouteGroup;
}

export interface MountedGroups {
  /** Every declared route, for the OpenAPI document. */
  routes: MountedRoute[];
  /** Every route group path and what lies below it, prefix included: this server's own, never forwarded to an upstream. */
  ownPaths: string[];
  /** Whether `method path` is a `public` route's; undefined when no route is public, so other requests pay nothing. */
  isPublic: ((path: string, method: string) => boolean) | undefined;
}

export interface MountOptions {
  /** The API prefix `api` is served under. */
  prefix: string;
  /** The paths this server answers itself, prefix included (Hono's `:name` and `*` forms). */
  ownPaths: readonly string[];
  /** Where `RouteRequest.audit` writes. */
  audit: SecurityEventSink;
  /** What `RouteRequest.log` is: one logger for every handler. */
  log: HandlerLog;
}

// The audit line stays small whatever path a caller sends (as for upstream_request) or a bot passes as its action or details.
const MAX_AUDITED_PATH = 512;
const MAX_AUDITED_ACTION = 128;
const MAX_AUDITED_DETAILS = 16;
const MAX_AUDITED_DETAIL = 256;

/**
 * Checks every route group (MountError for the first that cannot be mounted) and adds its routes to `api`, the app
 * served under the prefix. Each route is one handler (scope beyond the method, body, then the bot's handler), so a
 * mounted route adds no compose level and this server's own endpoints pay only for the router's larger table.
 */
export function mountRouteGroups(api: Hono<WebuiEnv>, groups: readonly RouteGroup[], options: MountOptions): MountedGroups {
  checkGroupPaths(groups, options);
  const routes = groups.flatMap((group) => checkedRoutes(group));
  for (const route of routes)
    api.on(route.method, route.fullPath.slice(options.prefix.length), routeHandler(route, options.audit, options.log));
  // A plain Hono app is served the same context; it only does not name its variables' types.
  for (const group of groups) if (group.app) api.route(group.path.slice(options.prefix.length), group.app as Hono<WebuiEnv>);
  return {
    routes,
    ownPaths: groups.flatMap((group) => [group.path, `${group.path}/*`]),
    isPublic: publicRoutes(routes.filter((route) => route.options.public === true)),
  };
}

function checkGroupPaths(groups: readonly RouteGroup[], options: MountOptions): void {
  groups.forEach((group, index) => {
    const problem = groupPathProblem(group.path, options.prefix);
    if (problem !== null) throw new MountError(group.path, problem);
    const own = options.ownPaths.find((path) => pathsOverlap(group.path, path));
    if (own !== undefined) throw new MountError(group.path, `this server already answers ${own}`);
    const other = groups.slice(0, index).find((earlier) => pathsOverlap(group.path, earlier.path));
    if (other !== undefined) throw new MountError(group.path, `it overlaps the route group mounted at ${other.path}`);
  });
}

function checkedRoutes(group: RouteGroup): MountedRoute[] {
  // A whole app's routes first: a declared route beside one of them would hide it.
  const appRoutes = new Set(
    (group.app?.routes ?? []).filter((route) => route.method !== 'ALL').map((route) => routeShape(route.method, route.path)),
  );
  const seen = new Set<string>();
  return group.routes.map((route) => {
    const what = `${route.method} ${group.path}${route.path === '/' ? '' : route.path}`;
    const problem = routePathProblem(route.path);
    if (problem !== null) throw new MountError(what, problem);
    const { options } = route;
    if (typeof route.handler !== 'function') throw new MountError(what, 'the route has no handler function');
    if (options.public === true && options.scope !== undefined) throw new MountError(what, 'a public route takes no scope');
    if (options.scope === 'read' && route.method !== 'GET')
      throw new MountError(what, `a ${route.method} route changes state: its scope is admin`);
    if (options.body !== undefined && route.method === 'GET') throw new MountError(what, 'a GET route takes no body');
    const shape = routeShape(route.method, route.path);
    if (seen.has(shape)) throw new MountError(what, 'the group declares this method and path twice');
    if (appRoutes.has(shape)) throw new MountError(what, "the group's Hono app answers this method and path too");
    seen.add(shape);
    return { ...route, group, fullPath: route.path === '/' ? group.path : `${group.path}${route.path}` };
  });
}

/** A route as the router tells it apart: the same path with other parameter names is the same route. */
function routeShape(method: string, path: string): string {
  return `${method} ${path.replace(/:\w+/g, ':')}`;
}

/** The one handler a declared route is mounted as: the scope a GET needs beyond its method, the body, then the bot's handler. */
function routeHandler(route: MountedRoute, audit: SecurityEventSink, log: HandlerLog): Handler<WebuiEnv> {
  const { options, handler } = route;
  const isPublic = options.public === true;
  // The session guard already refused a non-GET the admin scope does not cover; only a GET can need more than its method.
  const needsAdmin = !isPublic && route.method === 'GET' && options.scope === 'admin';
  const schema = options.body;
  return async (c) => {
    const principal: Principal | null = isPublic ? null : c.get('principal');
    const refusal = needsAdmin && principal !== null ? permissionRefusal(c, principal, 'admin') : undefined;
    if (refusal) return refusal;
    let body: unknown;
    if (schema !== undefined) {
      const read = await readJsonBody(c, schema);
      if (!read.ok) return read.response;
      body = read.value;
    }
    const request: RouteRequest<unknown> = {
      body,
      principal,
      audit: (action, details) => recordAction(c, audit, principal, action, details),
      log,
    };
    return handler(c, request);
  };
}

function recordAction(
  c: Context<WebuiEnv>,
  audit: SecurityEventSink,
  principal: RouteRequest['principal'],
  action: string,
  details: AuditDetails | undefined,
): void {
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  audit.record({
    event: 'bot_action',
    address: c.get('clientIp'),
    via: 'api',
    principal: callerIdentity(principal ?? undefined).principal,
    method: c.req.method,
    path: cut(c.req.path, MAX_AUDITED_PATH),
    action: cut(String(action), MAX_AUDITED_ACTION),
    ...(details === undefined ? {} : { details: boundedDetails(details, (text) => cut(text, MAX_AUDITED_DETAIL)) }),
  });
}

/** The first MAX_AUDITED_DETAILS plain fields, long strings and names cut: a bot's mistake cannot grow the audit file by megabytes a line. */
function boundedDetails(details: AuditDetails, cut: (text: string) => string): AuditDetails {
  const bounded: AuditDetails = {};
  for (const [name, value] of Object.entries(details).slice(0, MAX_AUDITED_DETAILS)) {
    if (value === null || typeof value === 'number' || typeof value === 'boolean') bounded[cut(name)] = value;
    else bounded[cut(name)] = cut(String(value));
  }
  return bounded;
}

/** The public routes' matcher: a prefix test first, so a request outside their groups pays one loop of string compares. */
function publicRoutes(routes: readonly MountedRoute[]): MountedGroups['isPublic'] {
  if (routes.length === 0) return undefined;
  const router = new TrieRouter<true>();
  for (const route of routes) router.add(route.method, route.fullPath, true);
  const groupPaths = [...new Set(routes.map((route) => route.group.path))];
  return (path, method) => {
    if (!groupPaths.some((group) => path.startsWith(group) && (path.length === group.length || path[group.length] === '/'))) return false;
    // A GET route answers HEAD too (Hono runs HEAD as GET).
    return router.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0;
  };
}
