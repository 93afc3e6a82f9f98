import type { SecurityEventSink } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv, WebuiServices } from '../app-env.js';
import type { AttemptGate } from '../attempt-gate.js';
import { requires } from '../middleware/session-guard.js';
import { attemptClientOf, presentedCredentials } from '../request-session.js';
import { errorBody, tooManyAttempts } from '../error-body.js';
import { readJsonBody } from '../json-body.js';
import { apiActor, weakTokenDetail, type OperatorActions } from '../operator-actions.js';
import { answerSessionCheck } from '../session-check.js';
import { UpdateTokenRequest, VerifyRequest } from '../schemas.js';
import type { SessionCookie } from '../session-cookie.js';
import type { LoginLog } from '../login-log.js';

export const LOGOUT_MESSAGE = '已成功登出';

/** /auth/*: login, session check, token rotation and logout. */
export function authRoutes(services: WebuiServices, cookie: SessionCookie, loginLog: LoginLog, gate: AttemptGate, audit: SecurityEventSink, actions: OperatorActions) {
  const { tokens, setup } = services;

  return new Hono<WebuiEnv>()
    .post('/auth/verify', async (c) => {
      const client = attemptClientOf(c);
      const clientIp = client.ip;
      const { admission, refusal } = await gate.admit(client);
      // DESIGN D2: while banned even the right token answers 429; so it does while the global budget is spent.
      if (refusal) {
        const message = refusal.scope === 'address' ? 'Too many failed attempts; this address is blocked for now.' : 'Too many failed logins on this server; try again later.';
        return tooManyAttempts(c, refusal.retryAfterSeconds, { valid: false, message }, refusal.scope);
      }
      const body = await readJsonBody(c, VerifyRequest);
      if (!body.ok) return body.response;

      const status = await tokens.statusFor(body.value.token);
      if (status) {
        await gate.succeeded(client, admission);
        cookie.issue(c, body.value.token);
        const isFirstSetup = await setup.isFirstSetup();
        loginLog.succeeded(clientIp, status.tokenSource);
        audit.record({ event: 'login_succeeded', address: clientIp, via: 'api', how: 'verify' });
        return c.json({
          valid: true,
          message: 'Token verified; logged in.',
          is_first_setup: isFirstSetup,
          token_source: status.tokenSource,
          requires_custom_token: status.requiresCustomToken,
        });
      }

      const outcome = await gate.failed(client, admission, 'verify');
      if (outcome.banned) return tooManyAttempts(c, outcome.retryAfterSeconds, { valid: false, message: 'Too many failed attempts; this address is blocked for 10 minutes.' });
      if (outcome.remind) {
        const n = outcome.remainingAttempts;
        return c.json({
          valid: false,
          message: `Invalid token. ${n} attempt${n === 1 ? '' : 's'} left before this address is blocked for 10 minutes.`,
          remaining_attempts: n,
        });
      }
      return c.json({ valid: false, message: 'Invalid token.' });
    })

    .get('/auth/check', async (c) => {
      // The answer a runtime's fast path gives too (session-check-shortcut.ts): one implementation.
      const answer = await answerSessionCheck(presentedCredentials(c), attemptClientOf(c), gate, services);
      return c.json(answer.body, answer.status, answer.headers);
    })

    .post('/auth/update', requires('change_token'), async (c) => {
      const body = await readJsonBody(c, UpdateTokenRequest);
      if (!body.ok) return body.response;
      const result = await actions.updateToken(body.value.new_token, apiActor(c));
      if (!result.ok) {
        const message = weakTokenDetail(result.error);
        return errorBody(c, 400, 'weak_token', message, { success: false, message, violations: result.error });
      }
      cookie.clear(c);
      return c.json({ success: true, message: 'Token updated. Log in again with the new token.' });
    })

    .post('/auth/regenerate', requires('change_token'), async (c) => {
      const token = await actions.regenerateToken(apiActor(c));
      cookie.clear(c);
      return c.json({ success: true, token, message: 'New token generated. It is shown only in this response; log in again with it.' });
    })

    .post('/auth/logout', (c) => {
      cookie.clear(c);
      return c.json({ success: true, message: LOGOUT_MESSAGE });
    });
}
