import type { AccessOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { ambiguousCredentials } from '../../middleware/access/session-guard.js';
import { attemptClientOf, presentedCredentialsOf } from '../../session/credentials/request-session.js';
import { tooManyAttempts } from '../../answers/error-body.js';

/** /ws-token: a one-time WebSocket ticket; without a session it answers 200 with success false, as the specification asks. */
export function wsTokenRoutes(operations: Pick<AccessOperations, 'issueTicket'>) {
  return new Hono<WebuiEnv>().get('/ws-token', async (c) => {
    const { outcome } = await operations.issueTicket(presentedCredentialsOf(c), attemptClientOf(c));
    switch (outcome.kind) {
      case 'issued':
        return c.json({ success: true, token: outcome.ticket, expires_in: outcome.expiresIn });
      case 'ambiguous':
        return ambiguousCredentials(c, outcome.code, { success: false, message: 'Send exactly one credential.' });
      case 'refused':
        return tooManyAttempts(
          c,
          outcome.retryAfterSeconds,
          { success: false, message: 'Too many failed attempts; try again later.' },
          outcome.scope,
        );
      case 'session_invalid':
        return c.json({ success: false, message: 'The session is no longer valid; log in again.' });
      default:
        return c.json({ success: false, message: 'Not logged in: call POST /api/webui/auth/verify first.' });
    }
  });
}
