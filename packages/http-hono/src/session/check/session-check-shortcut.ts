import type { AppLogger, HttpPolicy, WebuiServices } from '../../app-env.js';
import { afterAuditWritten, createAccessOperations, EventRecorder, type SecurityEventSink } from '@webui/core';
import { pause } from '../../answers/pause.js';
import { presentedCredentials } from '../credentials/request-session.js';
import { NO_AUDIT } from '../../answers/refusal-audit.js';
import { createEdgeVerdict, type ConnectionFacts } from '../../edge/edge-verdict.js';
import { forwardedForWarning } from '../../edge/forwarded-for-warning.js';
import { requestFailureAnswer } from '../../answers/error-body.js';
import { API_PREFIX } from '../../app.js';
import { plainAnswer, type JsonAnswer, type PlainAnswer } from '../../answers/plain-answer.js';
import { answerSessionCheck } from './session-check.js';

/** The request-target the shortcut answers, exactly as it comes on the request line. */
export const SESSION_CHECK_TARGET = `${API_PREFIX}/auth/check`;

export interface PlainRequest extends ConnectionFacts {
  method: string;
  /** The request-target as sent: a path and maybe a query, or an absolute URL. */
  target: string;
}

/** Answers a request, or returns null to leave it to the app. */
export type SessionCheckShortcut = (request: PlainRequest) => Promise<PlainAnswer> | null;

/**
 * GET /api/webui/auth/check without the Hono app. The dashboard polls it, and for it building a web
 * Request, a context and the middleware chain costs more than the check itself. It runs the app's
 * own steps (the edge verdict, the session check, the answer) and takes only the plain case: no
 * Origin (so no CORS), no refusal, debug logging off (so no per-request line is missed). Returns
 * undefined when debug logging is on: the app then answers everything.
 */
export function createSessionCheckShortcut(options: {
  services: WebuiServices;
  policy: HttpPolicy;
  logger: AppLogger;
  audit?: SecurityEventSink;
}): SessionCheckShortcut | undefined {
  const { services, policy, logger } = options;
  if (logger.isLevelEnabled?.('debug') !== false) return undefined;
  const audit = options.audit ?? NO_AUDIT;
  // The same verb the route calls, its events recorded as the app records them (this path logs in nobody).
  const operations = createAccessOperations(services, { sink: new EventRecorder(audit, logger, () => performance.now()), pause });
  // Its own once-a-minute warning about a proxy that names no client: the only state per transport.
  const edgeVerdict = createEdgeVerdict(
    policy,
    forwardedForWarning(logger, () => performance.now()),
  );
  // One step from the answer to the wire form, sent once its audit line is written.
  const written = (answer: JsonAnswer) => afterAuditWritten(audit, plainAnswer(answer));
  return (request) => {
    if (request.method !== 'GET' || request.target !== SESSION_CHECK_TARGET || request.header('origin') !== undefined) return null;
    const verdict = edgeVerdict(request);
    if (verdict.refusal) return null;
    // The route's own answer and the app's own 500 (as app.onError gives it): nothing here is written twice.
    return answerSessionCheck(
      presentedCredentials(request.header('cookie'), request.header('authorization')),
      { ip: verdict.clientIp },
      operations,
    ).then(written, (error: unknown) => written(requestFailureAnswer(logger, error, SESSION_CHECK_TARGET)));
  };
}
