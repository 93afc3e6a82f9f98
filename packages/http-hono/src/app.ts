import { createWebuiOperations, EventRecorder, type SecurityEventSink } from '@webui/core';
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppLogger, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
import { errorBody, requestFailureAnswer } from './answers/error-body.js';
import type { Feature, FeatureSchema, ForwardedPaths } from './feature.js';
import { featureForwarding, FeatureSet } from './feature-set.js';
import { builtinFeatures } from './features/builtin-features.js';
import type { FeatureContext } from './features/feature-context.js';
import { MAX_BODY_BYTES } from './middleware/state-change/body-limit.js';
import { usePipeline } from './pipeline.js';
import type { RuntimePort } from './runtime-port.js';
import { NO_AUDIT, RefusalAudit } from './answers/refusal-audit.js';
import { pause } from './answers/pause.js';
import type { MetricsScrape } from './features/metrics/metrics-routes.js';
import { WS_ROUTE, type WsUpgrade } from './features/channel/ws-routes.js';
import type { WsHub } from './features/channel/hub/ws-hub.js';
import { SessionCookie } from './session/credentials/session-cookie.js';
import { createReadAccess } from './session/request-access.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { handlerLogOver, type HandlerLog } from './mount/handler-log.js';
import { mountRouteGroups } from './mount/mount-route-groups.js';
import { mountedOperations } from './openapi/mounted-operations.js';

export const API_PREFIX = '/api/webui';
/** The WebSocket channel's path: the one target a runtime hands to its upgrade. */
export const WS_PATH = `${API_PREFIX}${WS_ROUTE}`;
export { MAX_BODY_BYTES };

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
  /** The logger the route groups' handlers get (`RouteRequest.log`); `logger` when absent. */
  handlerLog?: HandlerLog;
  /**
   * More features after the built-in ones (features/*), registered the same way: a bot's route groups and domains
   * (`extensionFeature`; a group that cannot be mounted is a MountError), the gateway.
   */
  features?: readonly Feature[];
  /** GET /metrics in the Prometheus text format, for the token's session or an admin key; absent, no such route. */
  metrics?: MetricsScrape;
}

/** The WebUI management API as a web-standard Hono app; the runtime brings the server. */
// The return type is inferred on purpose: it carries the built-in features' routes for Hono's typed client (hc).
export function createWebuiApp(options: WebuiAppOptions) {
  const { services, policy, runtime, logger } = options;
  const now = options.now ?? (() => performance.now());
  const audit = options.audit ?? NO_AUDIT;
  const refusals = new RefusalAudit(audit, now);
  // The core's verbs; their events become audit and log lines in the recorder, the one place that writes them.
  const operations = createWebuiOperations(services, { sink: new EventRecorder(audit, logger, now), pause });
  // Written once every feature is mounted below, before the app serves a request: a bot's groups are documented too.
  let openApi: ReturnType<typeof buildOpenApiDocument> = {};
  // The features given; a forwarding one's (the gateway's) assertion signer is forward-auth's too.
  const given = options.features ?? [];
  const forwarding = featureForwarding(given);
  const cookie = new SessionCookie(policy, logger);
  const context: FeatureContext = { options, operations, cookie, refusals, openApi: () => openApi, assertion: forwarding?.assertion };
  const builtins = builtinFeatures(context);
  const features = new FeatureSet([...builtins, ...given]);

  // The features' routes (each Hono app's routes join the one router: no compose level per feature).
  const api = new Hono<WebuiEnv>();
  for (const feature of features.features) if (feature.routes) api.route('/', feature.routes);
  // The bot's groups last: each is checked against every path above (and the channel's and the docs' when not mounted).
  const own = features.ownPaths().map((path) => `${API_PREFIX}${path}`);
  const mounted = mountRouteGroups(api, features.groups, {
    prefix: API_PREFIX,
    ownPaths: own,
    audit,
    log: options.handlerLog ?? handlerLogOver(logger),
  });
  openApi = buildOpenApiDocument({
    serviceName: policy.serviceName,
    version: options.version ?? '0.1.0',
    prefix: API_PREFIX,
    operations: features.operations(mountedOperations(mounted.routes, features.groups, API_PREFIX)),
  });
  const isOwnPublic = (path: string) => features.isPublicPath(path.slice(API_PREFIX.length));
  // Without a public mounted route, the guard's public test is exactly the one it had before route groups.
  const mountedPublic = mounted.isPublic;
  const isPublic = mountedPublic ? (path: string, method: string) => isOwnPublic(path) || mountedPublic(path, method) : isOwnPublic;
  // With a forwarding feature (the gateway), what this server does not answer under its paths goes there (issue 33).
  const forwarded: ForwardedPaths | undefined = forwarding?.paths({
    ownPaths: [...own, ...mounted.ownPaths],
    logger,
    audit,
    now,
    // The session guard's rules below, for a runtime's fast path that forwards a read without the app.
    readAccess: () => createReadAccess({ services, policy, logger, audit, isPublic: guardIsPublic, isForwarded }),
  });
  const isForwarded: ((path: string) => boolean) | undefined = forwarded && ((path: string) => forwarded.isForwarded(path));
  // The guard then also meets paths outside the prefix, which none of its own public paths are.
  const guardIsPublic: (path: string, method: string) => boolean = forwarded
    ? (path: string, method: string) => (isApiPath(path) && isPublic(path, method)) || forwarded.isPublic(path, method)
    : isPublic;

  const pipeline = new Hono<WebuiEnv>();
  usePipeline(pipeline, {
    runtime,
    policy,
    logger,
    now,
    audit,
    refusals,
    operations,
    guarded: forwarded ? forwarded.guardedPatterns(API_PREFIX) : [`${API_PREFIX}/*`],
    widerCors: forwarded !== undefined || features.groups.length > 0,
    isForwarded,
    isPublic: guardIsPublic,
  });
  // The routes, typed by the built-in features' schemas so the app's type carries them for hc.
  const app = pipeline.route(API_PREFIX, api as Hono<WebuiEnv, FeatureSchema<(typeof builtins)[number]>>);
  // Last of the handlers: a forwarded path is one no route above answered.
  if (forwarded) {
    const forward = forwarded.forward;
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

/** The app's type with every route, for `hc<WebuiApp>(baseUrl)` in packages/client. */
export type WebuiApp = ReturnType<typeof createWebuiApp>;
