import type { AccessOperations, SecurityEventSink } from '@webui/core';
import type { Hono, MiddlewareHandler } from 'hono';
import type { AppLogger, HttpPolicy, WebuiEnv } from './app-env.js';
import { forwardedForWarning } from './edge/forwarded-for-warning.js';
import { holdAnswerUntilAudited } from './middleware/audit-hold.js';
import { corsForAllowedOrigins } from './middleware/cors-for-allowed-origins.js';
import { identifyAndAdmitClient } from './middleware/identify-and-admit-client.js';
import { requestLog } from './middleware/request-log.js';
import { sessionGuard } from './middleware/access/session-guard.js';
import { guardStateChanges } from './middleware/state-change/state-change-guard.js';
import type { RefusalAudit } from './answers/refusal-audit.js';
import type { RuntimePort } from './runtime-port.js';

/**
 * The request pipeline, once, in the order a request meets it:
 *
 *   edge -> log -> CORS -> CSRF -> body limit -> session -> scope -> the route
 *
 * Each Hono compose level costs about a microsecond per request (docs/decisions/0031-one-pipeline-measured-speed-ups.md),
 * so steps that every request passes, or that skip the same requests, run fused into one middleware, named here:
 */
export const PIPELINE = [
  /** Registered first so it finishes last: no answer leaves ahead of its audit line (a sink that writes in groups only). */
  { step: 'audit-hold', runs: 'holdAnswerUntilAudited' },
  /** Fused: the runtime port, no-store, the client address, HTTPS, then allowed IPs, one Host and the Host rule. */
  { step: 'edge', runs: 'identifyAndAdmitClient' },
  { step: 'log', runs: 'requestLog' },
  { step: 'cors', runs: 'corsForAllowedOrigins' },
  /** Fused: both skip the same requests (GET/HEAD/OPTIONS, forwarded: GET/HEAD); a forwarded body streams, so CSRF only. */
  { step: 'csrf+body-limit', runs: 'guardStateChanges' },
  /** Fused: both skip the same requests (the public paths); the credential, then its scope for the method. */
  { step: 'session+scope', runs: 'sessionGuard' },
] as const;

export interface PipelineOptions {
  runtime: RuntimePort;
  policy: HttpPolicy;
  logger: AppLogger;
  now: () => number;
  audit: SecurityEventSink;
  refusals: RefusalAudit;
  operations: Pick<AccessOperations, 'authenticate'>;
  /** The patterns the API's steps run under: the prefix's, and one per outermost forwarded prefix (no request meets a step twice). */
  guarded: readonly string[];
  /** Whether the preflight allows PUT and PATCH too (with an upstream or a bot's route group). */
  widerCors: boolean;
  /** Whether a path is forwarded: there only GET and HEAD read, and the body streams unread. */
  isForwarded: ((path: string) => boolean) | undefined;
  /** Whether `method path` answers without a login (computed once from the features). */
  isPublic: (path: string, method: string) => boolean;
}

/** Writes the steps of PIPELINE into `app`, in order; a step with nothing to do under this configuration is left out. */
export function usePipeline(app: Hono<WebuiEnv>, options: PipelineOptions): void {
  const { runtime, policy, logger, now, refusals } = options;
  const refused = refusals.refused.bind(refusals);
  const auditHold = holdAnswerUntilAudited(options.audit);
  if (auditHold) app.use(auditHold);
  // edge (docs/decisions/0003-client-address.md), allowlist and Host (docs/decisions/0008-allowed-ips.md, docs/decisions/0009-csrf-and-dns-rebinding.md), every path
  app.use(identifyAndAdmitClient(runtime, policy, forwardedForWarning(logger, now), refused));
  const guard = (step: MiddlewareHandler<WebuiEnv>) => options.guarded.forEach((paths) => app.use(paths, step));
  const log = requestLog(logger, now);
  if (log) guard(log); // one debug line per API request; no step when debug is off
  guard(corsForAllowedOrigins(policy, options.widerCors)); // for requests that carry an Origin
  guard(guardStateChanges(policy, refused, options.isForwarded)); // CSRF, then the 16 KiB body limit
  guard(sessionGuard(options.operations, options.isPublic, options.isForwarded)); // credentials, then their scope
}
