import { createAccessOperations, EventRecorder, type AccessOperations, type SecurityEventSink } from '@webui/core';
import type { AppLogger, HttpPolicy, WebuiServices } from '../app-env.js';
import { pause } from '../answers/pause.js';
import { NO_AUDIT } from '../answers/refusal-audit.js';
import { createEdgeVerdict, type ConnectionFacts, type EdgeVerdict } from '../edge/edge-verdict.js';
import { forwardedForWarning } from '../edge/forwarded-for-warning.js';

/** The app's own steps for a runtime's fast path: the core's access verbs, its audit, and the edge's admission. */
export interface PlainSteps {
  operations: AccessOperations;
  audit: SecurityEventSink;
  /**
   * The edge verdict of a request a fast path may take, or null: the app's. It takes only what the steps decide alone: no
   * Origin (so no CORS), no edge refusal (the app answers and audits those).
   */
  admit(request: ConnectionFacts): EdgeVerdict | null;
}

/**
 * The steps every fast path runs, built once per fast path (each keeps its own once-a-minute proxy warning). Undefined when
 * debug logging is on: the app then answers everything, so no request's debug line is missed.
 */
export function createPlainSteps(options: {
  services: WebuiServices;
  policy: HttpPolicy;
  logger: AppLogger;
  audit?: SecurityEventSink;
}): PlainSteps | undefined {
  const { services, policy, logger } = options;
  if (logger.isLevelEnabled?.('debug') !== false) return undefined;
  const audit = options.audit ?? NO_AUDIT;
  // The same verbs the routes call, their events recorded as the app records them.
  const operations = createAccessOperations(services, { sink: new EventRecorder(audit, logger, () => performance.now()), pause });
  const edgeVerdict = createEdgeVerdict(
    policy,
    forwardedForWarning(logger, () => performance.now()),
  );
  return {
    operations,
    audit,
    admit(request) {
      if (request.header('origin') !== undefined) return null;
      const verdict = edgeVerdict(request);
      return verdict.refusal ? null : verdict;
    },
  };
}
