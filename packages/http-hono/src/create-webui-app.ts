import { createWebuiOperations, EventRecorder, type SecurityEventSink } from '@webui/core';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { AppLogger, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
import { isAllowedOrigin } from './allowed-origins.js';
import { limitBody, MAX_BODY_BYTES } from './body-limit.js';
import { errorBody, requestFailureAnswer } from './error-body.js';
import { createEdgeVerdict, type EdgeRefusal } from './edge-verdict.js';
import { forwardedForWarning } from './forwarded-for-warning.js';
import { originRefusal } from './middleware/origin-guard.js';
import { requestLog } from './middleware/request-log.js';
import { sessionGuard } from './middleware/session-guard.js';
import { requestHeader, type RuntimePort } from './runtime-port.js';
import { afterAuditWritten } from './audit-written.js';
import { NO_AUDIT, RefusalAudit } from './refusal-audit.js';
import { pause } from './pause.js';
import { authRoutes } from './routes/auth.js';
import { keysRoutes } from './routes/keys.js';
import { healthRoutes } from './routes/health.js';
import { securityRoutes } from './routes/security.js';
import { setupRoutes } from './routes/setup.js';
import { WS_ROUTE, wsRoutes, type WsUpgrade } from './routes/ws.js';
import { wsTokenRoutes } from './routes/ws-token.js';
import type { WsHub } from './ws/ws-hub.js';
import { SessionCookie } from './session-cookie.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';

export const API_PREFIX = '/api/webui';
/** The WebSocket channel's path: the one target a runtime hands to its upgrade. */
export const WS_PATH = `${API_PREFIX}${WS_ROUTE}`;
export { MAX_BODY_BYTES };

/** Paths under the prefix that answer without a session; every other path needs one (DESIGN D7). */
const PUBLIC_PATHS = new Set(['/health', '/auth/verify', '/auth/check', '/auth/logout', '/ws-token', WS_ROUTE, '/openapi.json', '/docs']);
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
  /** Extra route groups mounted under the prefix behind the session guard (e.g. /config/*). */
  protectedRoutes?: Array<{ path: string; app: Hono<WebuiEnv> }>;
}

const EDGE_REFUSAL: Record<EdgeRefusal, { status: 400 | 403; detail: string }> = {
  ip_not_allowed: { status: 403, detail: 'This address is not in webui.allowed_ips.' },
  duplicate_host: { status: 400, detail: 'The request carries more than one Host header; send one.' },
  host_not_allowed: { status: 403, detail: 'This Host is not served; add it to webui.allowed_hosts if a proxy forwards it.' },
};
const edgeRefusal = (c: Context, refusal: EdgeRefusal) => errorBody(c, EDGE_REFUSAL[refusal].status, refusal, EDGE_REFUSAL[refusal].detail);

/** The WebUI management API as a web-standard Hono app; the runtime brings the server. */
// The return type is inferred on purpose: it carries every route for Hono's typed client (hc).
export function createWebuiApp(options: WebuiAppOptions) {
  const { services, policy, runtime, logger } = options;
  const cookie = new SessionCookie(policy, logger);
  const now = options.now ?? (() => performance.now());
  const isPublic = (path: string) => isPublicPath(path.slice(API_PREFIX.length));
  const openApi = buildOpenApiDocument({ serviceName: policy.serviceName, version: options.version ?? '0.1.0', prefix: API_PREFIX });

  const corsForAllowedOrigins = cors({
    origin: (origin, c) => (isAllowedOrigin(origin, c, policy) ? origin : null),
    credentials: true,
    allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // An allowed origin (a dashboard dev server) may use a key too; a foreign one's preflight is refused above.
    allowHeaders: ['Content-Type', 'Authorization'],
    maxAge: 600,
  });

  const bodyLimit = limitBody();
  const audit = options.audit ?? NO_AUDIT;
  const refusals = new RefusalAudit(audit, now);
  // The core's verbs; their events become audit and log lines in the recorder, the one place that writes them.
  const operations = createWebuiOperations(services, { sink: new EventRecorder(audit, logger, now), pause });
  const session = sessionGuard(operations, isPublic);
  // originGuard, then the body limit, then the session guard, folded into one step: fewer async layers per request.
  const guards: MiddlewareHandler<WebuiEnv> = (c, next) => {
    const refusal = originRefusal(c, policy, (reason) => refusals.refused(c.get('clientIp'), reason));
    if (refusal) return Promise.resolve(refusal);
    // Whatever the session guard answers (a refusal) travels back through the body limit, as compose would carry it.
    return bodyLimit(c, () => session(c, next) as Promise<void>);
  };
  // Only browsers send Origin; answering scripts without the CORS step keeps their responses unrebuilt.
  const apiSteps: MiddlewareHandler<WebuiEnv> = (c, next) => {
    if (requestHeader(c, 'origin') === undefined) return guards(c, next);
    // The CORS step wraps the guards and ignores what its next() returns: set a refusal on c.res as compose would.
    return corsForAllowedOrigins(c, async () => {
      const res = await guards(c, next);
      if (res && c.finalized === false) c.res = res;
    });
  };
  // The debug line per request costs a closure and two clock reads; skipped entirely when nobody reads it.
  const apiEntry = logger.isLevelEnabled?.('debug') === false ? apiSteps : requestLog(logger, now, apiSteps);

  const isTls = runtime.isTls ?? (() => false);
  const edgeVerdict = createEdgeVerdict(policy, forwardedForWarning(logger, now));
  // The edge, in one step for every path: who the client is, D8 allowed IPs, D9 Host check; then, under
  // the API prefix, the request log, CORS, the Origin check, the body limit and the session guard.
  const edge: MiddlewareHandler<WebuiEnv> = (c, next) => {
    c.set('runtime', runtime);
    // Answers carry session state and, once, a fresh token: never cache them, refusals included.
    // Set before the handler runs, so a response is never rebuilt to add it; static assets that choose their own caching overwrite it.
    if (runtime.presetAnswerHeader?.(c, 'Cache-Control', 'no-store') !== true) c.header('Cache-Control', 'no-store');
    const verdict = edgeVerdict({ peerAddress: runtime.getConnInfo(c).remote.address, isTls: isTls(c), header: (name) => requestHeader(c, name) });
    c.set('clientIp', verdict.clientIp);
    c.set('secureTransport', verdict.secureTransport);
    if (verdict.refusal) {
      if (verdict.refusal === 'host_not_allowed') refusals.refused(verdict.clientIp, 'host_not_allowed');
      return Promise.resolve(edgeRefusal(c, verdict.refusal));
    }
    return isApiPath(c.req.path) ? apiEntry(c, next) : next();
  };

  const api = new Hono<WebuiEnv>()
    .route('/', healthRoutes(policy.serviceName, options.storeAvailable))
    .route('/', authRoutes(operations, cookie))
    .route('/', setupRoutes(operations))
    .route('/', wsTokenRoutes(operations))
    .route('/', securityRoutes(operations))
    .route('/', keysRoutes(operations))
    .get('/openapi.json', (c) => c.json(openApi));
  const docs = options.docs;
  if (docs) api.get('/docs', docs).get('/docs/*', docs);
  if (options.webSocket) api.route('/', wsRoutes(operations, policy, options.webSocket.hub, options.webSocket.upgrade, (address) => refusals.refused(address, 'origin_not_allowed')));
  for (const group of options.protectedRoutes ?? []) api.route(group.path, group.app);

  // A sink that writes in groups is waited for, so no answer runs ahead of its audit line.
  const auditedEdge: MiddlewareHandler<WebuiEnv> = audit.written === undefined ? edge : (c, next) => edge(c, next).then((res) => afterAuditWritten(audit, res));
  const app = new Hono<WebuiEnv>().use(auditedEdge).route(API_PREFIX, api);
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

/** The app's type with every route, for `hc<WebuiApp>(baseUrl)` in packages/client. */
export type WebuiApp = ReturnType<typeof createWebuiApp>;
