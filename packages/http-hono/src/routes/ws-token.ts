import { Hono } from 'hono';
import type { WebuiEnv, WebuiServices } from '../app-env.js';
import type { AttemptGate } from '../attempt-gate.js';
import { ambiguousCredentials } from '../middleware/session-guard.js';
import { readRequestSession } from '../request-session.js';
import { tooManyAttempts } from '../error-body.js';

/** /ws-token: a one-time WebSocket ticket; without a session it answers 200 with success false, as the specification asks. */
export function wsTokenRoutes(services: WebuiServices, gate: AttemptGate) {
  return new Hono<WebuiEnv>().get('/ws-token', async (c) => {
    // A read-scoped key may open the WebSocket: a ticket is issued to any valid session, cookie or bearer.
    const session = await readRequestSession(c, gate, services);
    if (session.kind === 'ambiguous') return ambiguousCredentials(c, session.code, { success: false, message: 'Send exactly one credential.' });
    if (session.kind === 'refused') return tooManyAttempts(c, session.retryAfterSeconds, { success: false, message: 'Too many failed attempts; try again later.' }, session.scope);
    if (session.kind !== 'valid') return c.json({ success: false, message: 'Not logged in: call POST /api/webui/auth/verify first.' });
    const issued = await services.tickets.issue(session.principal.session);
    if (!issued.ok) return c.json({ success: false, message: 'The session is no longer valid; log in again.' });
    return c.json({ success: true, token: issued.value.ticket, expires_in: issued.value.expiresIn });
  });
}
