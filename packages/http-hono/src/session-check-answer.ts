import type { CookieSession } from './cookie-session.js';
import { tooManyAttemptsFields } from './error-body.js';

export interface SessionCheckAnswer {
  status: 200 | 429;
  body: Record<string, unknown>;
  /** Set for a 429: the Retry-After header. */
  retryAfterSeconds?: number;
}

/** What GET /auth/check answers for a session (specification "Check login"; DESIGN D2 while banned). */
export function sessionCheckAnswer(session: CookieSession): SessionCheckAnswer {
  switch (session.kind) {
    case 'banned':
      return { status: 429, body: tooManyAttemptsFields(session.retryAfterSeconds, { authenticated: false }), retryAfterSeconds: session.retryAfterSeconds };
    case 'valid':
      return { status: 200, body: { authenticated: true, token_source: session.status.tokenSource, requires_custom_token: session.status.requiresCustomToken } };
    default:
      return { status: 200, body: { authenticated: false } };
  }
}
