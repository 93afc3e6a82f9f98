import {
  afterAuditWritten,
  isPending,
  permits,
  settled,
  type AuthenticationOutcome,
  type Awaitable,
  type Principal,
  type SecurityEventSink,
} from '@webui/core';
import type { AppLogger, HttpPolicy, WebuiServices } from '../app-env.js';
import { requestFailureAnswer } from '../answers/error-body.js';
import { plainAnswer, type PlainAnswer } from '../answers/plain-answer.js';
import { sessionRefusalAnswer } from '../middleware/access/session-guard.js';
import { methodPermission, scopeRefusalAnswer } from '../middleware/access/scope-guard.js';
import { presentedCredentials } from './credentials/request-session.js';
import { createPlainSteps } from './plain-steps.js';
import type { PlainRequest } from './check/session-check-shortcut.js';

/** A read the pipeline let through: who the client is, and the principal (none on a public path). */
export interface AdmittedRead {
  admitted: true;
  clientIp: string;
  secureTransport: boolean;
  principal: Principal | undefined;
}

/** A read the pipeline refused, with the answer the app would give (written once its audit line is). */
export interface RefusedRead {
  admitted: false;
  answer: PlainAnswer;
}

/** A GET or HEAD to `path` (decoded as the app decodes it), as a runtime's fast path hands it over. */
export interface PlainRead extends PlainRequest {
  path: string;
}

/**
 * Judges a read as the pipeline does, or returns null to leave it to the app (which then judges it itself); at once when the
 * store answers at once (Awaitable).
 */
export type ReadAccess = (request: PlainRead) => Awaitable<AdmittedRead | RefusedRead> | null;

/**
 * The pipeline's steps for a GET or HEAD without the Hono app, for a runtime's fast path: the same edge verdict, the same
 * session guard (the public paths, the core's authenticate verb, its refusals) and the same scope rule (core's `permits` for
 * the method's permission). It takes only what those steps decide alone: no Origin (so no CORS), no edge refusal (the app
 * answers and audits those), debug logging off (no request log line is missed); it returns undefined when debug is on.
 */
export function createReadAccess(options: {
  services: WebuiServices;
  policy: HttpPolicy;
  logger: AppLogger;
  audit?: SecurityEventSink;
  /** The session guard's own rule: whether `method path` answers without a login. */
  isPublic: (path: string, method: string) => boolean;
  isForwarded?: (path: string) => boolean;
}): ReadAccess | undefined {
  const { logger, isPublic, isForwarded } = options;
  const steps = createPlainSteps(options);
  if (steps === undefined) return undefined;
  const { operations, audit } = steps;
  const refusedRead = (answer: PlainAnswer) => afterAuditWritten<RefusedRead>(audit, { admitted: false, answer });
  return (request) => {
    const { method, path } = request;
    if (method !== 'GET' && method !== 'HEAD') return null;
    const verdict = steps.admit(request);
    if (verdict === null) return null;
    const { clientIp, secureTransport } = verdict;
    if (isPublic(path, method)) return { admitted: true, clientIp, secureTransport, principal: undefined };
    const presented = presentedCredentials(request.header('cookie'), request.header('authorization'));
    const judged = ({ outcome: session }: { outcome: AuthenticationOutcome }): Awaitable<RefusedRead | AdmittedRead> => {
      if (session.kind !== 'valid') return refusedRead(plainAnswer(sessionRefusalAnswer(session)));
      const permission = methodPermission(method, path, isForwarded);
      if (!permits(session.principal, permission)) return refusedRead(plainAnswer(scopeRefusalAnswer(permission)));
      return { admitted: true, clientIp, secureTransport, principal: session.principal };
    };
    // The app's own 500 or 503 (as app.onError gives it).
    const failed = (error: unknown) => refusedRead(plainAnswer(requestFailureAnswer(logger, error, path)));
    const authenticated = operations.authenticate(presented, { ip: clientIp });
    return settled(() => (isPending(authenticated) ? authenticated.then(judged, failed) : judged(authenticated)));
  };
}
