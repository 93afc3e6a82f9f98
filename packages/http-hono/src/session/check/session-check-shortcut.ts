import type { AppLogger, HttpPolicy, WebuiServices } from '../../app-env.js';
import { afterAuditWritten, isPending, settled, type Awaitable, type SecurityEventSink } from '@webui/core';
import { presentedCredentials } from '../credentials/request-session.js';
import type { ConnectionFacts } from '../../edge/edge-verdict.js';
import { createPlainSteps } from '../plain-steps.js';
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

/** Answers a request (at once when the store answers at once), or returns null to leave it to the app. */
export type SessionCheckShortcut = (request: PlainRequest) => Awaitable<PlainAnswer> | null;

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
  const { logger } = options;
  const steps = createPlainSteps(options);
  if (steps === undefined) return undefined;
  const { operations, audit } = steps;
  // One step from the answer to the wire form, sent once its audit line is written.
  const written = (answer: JsonAnswer) => afterAuditWritten(audit, plainAnswer(answer));
  return (request) => {
    if (request.method !== 'GET' || request.target !== SESSION_CHECK_TARGET) return null;
    const verdict = steps.admit(request);
    if (verdict === null) return null;
    // The route's own answer and the app's own 500 (as app.onError gives it): nothing here is written twice.
    const failed = (error: unknown) => written(requestFailureAnswer(logger, error, SESSION_CHECK_TARGET));
    return settled(() => {
      const answer = answerSessionCheck(
        presentedCredentials(request.header('cookie'), request.header('authorization')),
        { ip: verdict.clientIp },
        operations,
      );
      return isPending(answer) ? answer.then(written, failed) : written(answer);
    });
  };
}
