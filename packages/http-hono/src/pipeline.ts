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
 * so steps that every request passes, or that skip the same requests, run fused into one middleware, named here. This list is
 * the order: usePipeline writes it, and the tests read it.
 */
export const PIPELINE: readonly PipelineStep[] = [
  /** Registered first so it finishes last: no answer leaves ahead of its audit line (a sink that writes in groups only). */
  { step: 'audit-hold', on: 'every path', make: (o) => holdAnswerUntilAudited(o.audit) },
  /**
   * Fused: the runtime port, no-store, the client address, HTTPS, then allowed IPs, one Host and the Host rule
   * (docs/decisions/0003-client-address.md, docs/decisions/0008-allowed-ips.md, docs/decisions/0009-csrf-and-dns-rebinding.md).
   */
  {
    step: 'edge',
    on: 'every path',
    make: (o, refused) => identifyAndAdmitClient(o.runtime, o.policy, forwardedForWarning(o.logger, o.now), refused),
  },
  /** One debug line per API request; no step when debug is off. */
  { step: 'log', on: 'guarded', make: (o) => requestLog(o.logger, o.now) },
  /** For requests that carry an Origin. */
  { step: 'cors', on: 'guarded', make: (o) => corsForAllowedOrigins(o.policy, o.widerCors) },
  /** Fused: both skip the same requests (GET/HEAD/OPTIONS, forwarded: GET/HEAD); a forwarded body streams, so CSRF only. */
  { step: 'csrf+body-limit', on: 'guarded', make: (o, refused) => guardStateChanges(o.policy, refused, o.isForwarded) },
  /** Fused: both skip the same requests (the public paths); the credential, then its scope for the method. */
  { step: 'session+scope', on: 'guarded', make: (o) => sessionGuard(o.operations, o.isPublic, o.isForwarded) },
];

/** One step of the pipeline: its name, where it runs, and its middleware under a configuration (none: left out). */
export interface PipelineStep {
  readonly step: string;
  /** `every path`: the site's too; `guarded`: the API's prefix and the forwarded prefixes (PipelineOptions.guarded). */
  readonly on: 'every path' | 'guarded';
  make(options: PipelineOptions, refused: RefusalAudit['refused']): MiddlewareHandler<WebuiEnv> | undefined;
}

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

/** Writes the steps of PIPELINE into `app`, in its order, one `use` each (per guarded pattern); a step with nothing to do is left out. */
export function usePipeline(app: Hono<WebuiEnv>, options: PipelineOptions): void {
  const refused = options.refusals.refused.bind(options.refusals);
  for (const { on, make } of PIPELINE) {
    const step = make(options, refused);
    if (step === undefined) continue;
    if (on === 'every path') app.use(step);
    else for (const paths of options.guarded) app.use(paths, step);
  }
}
