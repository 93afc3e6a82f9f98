import { DETAILS, type AccessOperations, type OperatorOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { requires } from '../../middleware/access/session-guard.js';
import { apiActor } from '../../session/api-actor.js';
import { attemptClientOf, presentedCredentialsOf } from '../../session/credentials/request-session.js';
import { errorBody, tooManyAttempts } from '../../answers/error-body.js';
import { readJsonBody } from '../../answers/json-body.js';
import { answerSessionCheck } from '../../session/check/session-check.js';
import { UpdateTokenRequest, VerifyRequest } from '../../schemas.js';
import type { SessionCookie } from '../../session/credentials/session-cookie.js';
import type { WireBody } from '../../wire-body.js';

export const LOGOUT_MESSAGE = '已成功登出';

/** /auth/*: login, session check, token rotation and logout; each a request parsed, one core verb, its outcome answered. */
export function authRoutes(
  operations: AccessOperations & Pick<OperatorOperations, 'changeToken' | 'regenerateToken'>,
  cookie: SessionCookie,
) {
  return (
    new Hono<WebuiEnv>()
      .post('/auth/verify', async (c) => {
        const body = await readJsonBody(c, VerifyRequest);
        if (!body.ok) return body.response;
        const { outcome } = await operations.login(body.value.token, attemptClientOf(c));
        switch (outcome.kind) {
          case 'refused': {
            // docs/decisions/0002-failed-verification-and-bans.md: while banned even the right token answers 429; so it does while the global budget is spent.
            const message =
              outcome.scope === 'address'
                ? 'Too many failed attempts; this address is blocked for now.'
                : 'Too many failed logins on this server; try again later.';
            return tooManyAttempts(c, outcome.retryAfterSeconds, { valid: false, message }, outcome.scope);
          }
          case 'valid':
            cookie.issue(c, body.value.token);
            return c.json({
              valid: true,
              message: 'Token verified; logged in.',
              is_first_setup: outcome.isFirstSetup,
              token_source: outcome.status.tokenSource,
              requires_custom_token: outcome.status.requiresCustomToken,
            } satisfies WireBody<'VerifyResponse'>);
          case 'banned':
            return tooManyAttempts(c, outcome.retryAfterSeconds, {
              valid: false,
              message: 'Too many failed attempts; this address is blocked for 10 minutes.',
            });
          case 'invalid': {
            const n = outcome.remainingAttempts;
            if (n === null) return c.json({ valid: false, message: 'Invalid token.' } satisfies WireBody<'VerifyResponse'>);
            return c.json({
              valid: false,
              message: `Invalid token. ${n} attempt${n === 1 ? '' : 's'} left before this address is blocked for 10 minutes.`,
              remaining_attempts: n,
            } satisfies WireBody<'VerifyResponse'>);
          }
        }
      })

      .get('/auth/check', async (c) => {
        // The answer a runtime's fast path gives too (session-check-shortcut.ts): one implementation.
        const answer = await answerSessionCheck(presentedCredentialsOf(c), attemptClientOf(c), operations);
        return c.json(answer.body, answer.status, answer.headers);
      })

      .post('/auth/update', requires('change_token'), async (c) => {
        const body = await readJsonBody(c, UpdateTokenRequest);
        if (!body.ok) return body.response;
        const { outcome } = await operations.changeToken(body.value.new_token, apiActor(c));
        if (!outcome.ok) {
          const message = DETAILS.weakToken(outcome.error);
          return errorBody(c, 400, 'weak_token', message, { success: false, message, violations: outcome.error });
        }
        cookie.clear(c);
        const message = 'Token updated. Log in again with the new token.';
        return c.json({ success: true, message } satisfies WireBody<'UpdateTokenResponse'>);
      })

      .post('/auth/regenerate', requires('change_token'), async (c) => {
        const { outcome: token } = await operations.regenerateToken(apiActor(c));
        cookie.clear(c);
        const message = 'New token generated. It is shown only in this response; log in again with it.';
        return c.json({ success: true, token, message } satisfies WireBody<'RegenerateResponse'>);
      })

      // A session is the token itself: logging out forgets the cookie, and no core state changes.
      .post('/auth/logout', (c) => {
        cookie.clear(c);
        return c.json({ success: true, message: LOGOUT_MESSAGE } satisfies WireBody<'LogoutResponse'>);
      })
  );
}
