import { createWebuiOperations, EventRecorder, type SecurityEventSink } from '@webui/core';
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppLogger, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
import { errorBody, requestFailureAnswer } from './error-body.js';
import { forwardedForWarning } from './forwarded-for-warning.js';
import { holdAnswerUntilAudited } from './middleware/audit-hold.js';
import { MAX_BODY_BYTES } from './middleware/body-limit.js';
import { corsForAllowedOrigins } from './middleware/cors-for-allowed-origins.js';
import { identifyAndAdmitClient } from './middleware/identify-and-admit-client.js';
import { requestLog } from './middleware/request-log.js';
import { sessionGuard } from './middleware/session-guard.js';
import { guardStateChanges } from './middleware/state-change-guard.js';
import type { RuntimePort } from './runtime-port.js';
import { NO_AUDIT, RefusalAudit } from './refusal-audit.js';
import { pause } from './pause.js';
import { authRoutes } from './routes/auth.js';
import { authForwardRoutes, FORWARD_AUTH_ROUTE } from './routes/auth-forward.js';
import { keysRoutes } from './routes/keys.js';
import { METRICS_OPERATION, metricsRoutes, type MetricsScrape } from './routes/metrics.js';
import { healthRoutes } from './routes/health.js';
import { securityRoutes } from './routes/security.js';
import { setupRoutes } from './routes/setup.js';
import { WS_ROUTE, wsRoutes, type WsUpgrade } from './routes/ws.js';
import { wsTokenRoutes } from './routes/ws-token.js';
import type { WsHub } from './ws/ws-hub.js';
import { SessionCookie } from './session-cookie.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { mountRouteGroups } from './mount/mount-route-groups.js';
import type { RouteGroup } from './mount/route-group.js';
import { mountedOperations } from './openapi/mounted-operations.js';
import { forwardToUpstream } from './upstream/forward-to-upstream.js';
import { ForwardedPaths, ownEndpoints } from './upstream/forwarded-paths.js';
import type { UpstreamOptions } from './upstream/upstream-options.js';

export const API_PREFIX = '/api/webui';
/** The WebSocket channel's path: the one target a runtime hands to its upgrade. */
export const WS_PATH = `${API_PREFIX}${WS_ROUTE}`;
export { MAX_BODY_BYTES };

/** Paths under the prefix that answer without a session; every other path needs one (docs/decisions/0007-default-deny.md). */
const PUBLIC_PATHS = new Set([
  '/health',
  '/auth/verify',
  '/auth/check',
  '/auth/logout',
  '/ws-token',
  WS_ROUTE,
  '/openapi.json',
  '/docs',
  FORWARD_AUTH_ROUTE,
]);
const isPublicPath = (path: string) => PUBLIC_PATHS.has(path) || path.startsWith('/docs/');
const isApiPath = (path: string) => path.startsWith(API_PREFIX) && (path.length === API_PREFIX.length || path[API_PREFIX.length] === '/');

export interface WebuiAppOptions {
  services: WebuiServices;
  policy: HttpPolicy;
  /** The runtime serving the app: Hono's getConnInfo, and any speed-ups it has. */
  runtime: RuntimePort;
  logger: AppLogger;
  /** Monotonic milliseconds for request timing and the login log window; injected so tests control time. */
  now?: () => number;
  /** The WebSocket channel, when the runtime can upgrade; without it /ws answers 404. */
  webSocket?: { upgrade: WsUpgrade; hub: WsHub };
  /** Serves the browser pages (the first-setup page) outside the API prefix, behind the same edge guards. */
  site?: MiddlewareHandler;
  /** Serves the interactive API docs at /docs (static assets the runtime reads from npm packages). */
  docs?: MiddlewareHandler;
  /** The API version shown in the OpenAPI document. */
  version?: string;
  /** Where security events go (the audit file, the `security` WebSocket domain); none by default. */
  audit?: SecurityEventSink;
  /** Whether the state store answers right now (a shared store can be lost); /health says degraded when not. */
  storeAvailable?: () => boolean;
  /** A bot's route groups under the prefix (e.g. /api/webui/config), behind the whole pipeline; MountError when one cannot be mounted. */
  routeGroups?: readonly RouteGroup[];
  /** The bot's own backend: the paths under `upstream.paths` this server does not answer go there, behind the whole pipeline. */
  upstream?: UpstreamOptions;
  /** GET /metrics in the Prometheus text format, for the token's session or an admin key; absent, no such route. */
  metrics?: MetricsScrape;
}

/** The WebUI management API as a web-standard Hono app; the runtime brings the server. */
// The return type is inferred on purpose: it carries every route for Hono's typed client (hc).
export function createWebuiApp(options: WebuiAppOptions) {
  const { services, policy, runtime, logger } = options;
  const cookie = new SessionCookie(policy, logger);
  const now = options.now ?? (() => performance.now());
  const isOwnPublic = (path: string) => isPublicPath(path.slice(API_PREFIX.length));

  const audit = options.audit ?? NO_AUDIT;
  const refusals = new RefusalAudit(audit, now);
  const refused = refusals.refused.bind(refusals);
  // The core's verbs; their events become audit and log lines in the recorder, the one place that writes them.
  const operations = createWebuiOperations(services, { sink: new EventRecorder(audit, logger, now), pause });

  // Written once the bot's route groups are mounted below, before the app serves a request: they are documented too.
  let openApi: ReturnType<typeof buildOpenApiDocument> = {};
  const api = new Hono<WebuiEnv>()
    .route('/', healthRoutes(policy.serviceName, options.storeAvailable))
    .route('/', authRoutes(operations, cookie))
    .route('/', authForwardRoutes(operations, policy, refused, options.upstream?.assertion))
    .route('/', setupRoutes(operations))
    .route('/', wsTokenRoutes(operations))
    .route('/', securityRoutes(operations))
    .route('/', keysRoutes(operations))
    .get('/openapi.json', (c) => c.json(openApi));
  const docs = options.docs;
  if (docs) api.get('/docs', docs).get('/docs/*', docs);
  if (options.metrics) api.route('/', metricsRoutes(options.metrics));
  if (options.webSocket)
    api.route(
      '/',
      wsRoutes(operations, policy, options.webSocket.hub, options.webSocket.upgrade, (address) =>
        refusals.refused(address, 'origin_not_allowed'),
      ),
    );
  // The bot's groups last: each is checked against every path above (and the channel's and the docs' when not mounted).
  const routeGroups = options.routeGroups ?? [];
  const own = ownPaths(api);
  const mounted = mountRouteGroups(api, routeGroups, { prefix: API_PREFIX, ownPaths: own, audit });
  openApi = buildOpenApiDocument({
    serviceName: policy.serviceName,
    version: options.version ?? '0.1.0',
    prefix: API_PREFIX,
    // The optional endpoints this server mounts (/metrics), then the bot's routes.
    mounted: [...(options.metrics ? [METRICS_OPERATION] : []), ...mountedOperations(mounted.routes, routeGroups, API_PREFIX)],
  });
  // Without a public mounted route, the guard's public test is exactly the one it had before route groups.
  const mountedPublic = mounted.isPublic;
  const isPublic = mountedPublic ? (path: string, method: string) => isOwnPublic(path) || mountedPublic(path, method) : isOwnPublic;
  // With an upstream, what this server does not answer under its paths goes there (issue 33); its own endpoints never do.
  const forwarded = options.upstream ? new ForwardedPaths(options.upstream, ownEndpoints([...own, ...mounted.ownPaths])) : undefined;
  // The guard then also meets paths outside the prefix, which none of its own public paths are.
  const isGuardPublic = forwarded
    ? (path: string, method: string) => (isApiPath(path) && isPublic(path, method)) || forwarded.isPublic(path, method)
    : isPublic;

  // The pipeline, in the order a request meets it; a step with nothing to do under this configuration is left out.
  // Steps that every request passes, or that skip the same requests, run fused: each compose level costs (docs/performance.md).
  const pipeline = new Hono<WebuiEnv>();
  const auditHold = holdAnswerUntilAudited(audit);
  if (auditHold) pipeline.use(auditHold); // first in, so last out: no answer, refusals included, runs ahead of its audit line
  pipeline.use(identifyAndAdmitClient(runtime, policy, forwardedForWarning(logger, now), refused)); // edge, then allowlist/Host (docs/decisions/0008-allowed-ips.md, docs/decisions/0009-csrf-and-dns-rebinding.md)
  // The API's steps run under the prefix, and under each forwarded prefix too (one pattern each, none inside another).
  const guarded = forwarded ? forwarded.guardedPatterns(API_PREFIX) : [`${API_PREFIX}/*`];
  const guard = (step: MiddlewareHandler<WebuiEnv>) => guarded.forEach((paths) => pipeline.use(paths, step));
  const log = requestLog(logger, now);
  if (log) guard(log); // one debug line per API request, with the status of whatever answered it
  guard(corsForAllowedOrigins(policy, forwarded !== undefined || routeGroups.length > 0)); // CORS, for requests that carry an Origin
  // Forwarded, only GET and HEAD read: an upstream may give OPTIONS a meaning of its own, so there it is a state change.
  const isForwarded = forwarded && ((path: string) => forwarded.isForwarded(path));
  // CSRF, then the 16 KiB body limit, for all but GET/HEAD/OPTIONS; a forwarded body streams, so CSRF only.
  guard(guardStateChanges(policy, refused, isForwarded));
  guard(sessionGuard(operations, isGuardPublic, isForwarded)); // credentials, then their scope, off the public paths
  const app = pipeline.route(API_PREFIX, api); // the routes (chained, so the app's type carries them for hc)
  // Last of the handlers: a forwarded path is one no route above answered.
  if (forwarded && options.upstream) {
    const forward = forwardToUpstream({ upstream: options.upstream, logger, audit, now });
    app.all('/*', (c, next) => (forwarded.isForwarded(c.req.path) ? forward(c) : next()));
  }
  const site = options.site;
  // The site never answers under the API prefix, so an API 404 stays an API 404.
  if (site) app.get('/*', (c, next) => (isApiPath(c.req.path) ? next() : site(c, next)));

  app.notFound((c) => errorBody(c, 404, 'not_found', `No endpoint at ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      return errorBody(c, error.status === 500 ? 500 : (error.status as 400), 'http_error', error.message || 'Bad request.');
    }
    const answer = requestFailureAnswer(logger, error, c.req.path);
    return c.json(answer.body, answer.status, answer.headers);
  });
  return app;
}

/**
 * The paths the API's routes answer, with the prefix: the ones the channel and the docs would have even when not mounted,
 * and every route's path; a group's middleware (`use`, any method, a `*` path) says nothing about which paths answer.
 */
function ownPaths(api: Hono<WebuiEnv>): string[] {
  const routes = api.routes.filter((route) => route.method !== 'ALL' || !route.path.endsWith('*')).map((route) => route.path);
  return [...PUBLIC_PATHS, '/docs/*', ...routes].map((path) => `${API_PREFIX}${path}`);
}

/** The app's type with every route, for `hc<WebuiApp>(baseUrl)` in packages/client. */
export type WebuiApp = ReturnType<typeof createWebuiApp>;
