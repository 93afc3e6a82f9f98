import {
  andThen,
  DETAILS,
  type AccessOperations,
  type AttemptClient,
  type Awaitable,
  type PresentedCredentials,
  type SessionCheckOutcome,
} from '@webui/core';
import { errorFields, tooManyAttemptsFields } from '../../answers/error-body.js';
import { jsonAnswer, type JsonAnswer } from '../../answers/plain-answer.js';

/**
 * The whole answer to GET /auth/check (specification "Check login"; while banned a 429, docs/decisions/0002-failed-verification-and-bans.md)
 * for a client and its credentials: the core's checkSession verb mapped to its answer, the one
 * implementation the Hono route and a runtime's fast path both call. A bearer key is reported with its name and scope. At once
 * when the store answers at once (Awaitable).
 */
export function answerSessionCheck(
  presented: PresentedCredentials,
  client: AttemptClient,
  operations: Pick<AccessOperations, 'checkSession'>,
): Awaitable<JsonAnswer> {
  return andThen(operations.checkSession(presented, client), ({ outcome }) => sessionCheckAnswer(outcome));
}

function sessionCheckAnswer(session: SessionCheckOutcome): JsonAnswer {
  switch (session.kind) {
    case 'ambiguous':
      // A bad request (docs/decisions/0001-error-bodies.md), and not authenticated for a client that reads only that field.
      return jsonAnswer(400, errorFields(session.code, DETAILS.ambiguousCredentials[session.code], { authenticated: false }));
    case 'refused':
      return jsonAnswer(429, tooManyAttemptsFields(session.retryAfterSeconds, { authenticated: false }, session.scope), {
        'Retry-After': String(session.retryAfterSeconds),
      });
    case 'valid': {
      const { principal, tokenStatus } = session;
      const status = { authenticated: true, token_source: tokenStatus.tokenSource, requires_custom_token: tokenStatus.requiresCustomToken };
      return jsonAnswer(200, principal.kind === 'token' ? status : { ...status, key: { name: principal.name, scope: principal.scope } });
    }
    default:
      return jsonAnswer(200, { authenticated: false });
  }
}
