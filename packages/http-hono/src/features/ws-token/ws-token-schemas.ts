import { TICKET_TTL_SECONDS } from '@webui/core';
import * as v from 'valibot';
import { ErrorBody, TooManyAttemptsBody } from '../../schemas/error.js';

const refusal = { success: v.literal(false), message: v.string() };

/** Without a session this answers 200 success:false, not 401, as the specification asks. */
export const WsTokenResponse = v.variant('success', [
  v.strictObject({
    success: v.literal(true),
    token: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/), v.description('One-time ticket for GET /ws?token=.')),
    expires_in: v.pipe(v.literal(TICKET_TTL_SECONDS), v.description('Seconds the ticket lives.')),
  }),
  v.strictObject(refusal),
]);

/** GET /ws-token with more than one credential: a 400 (docs/decisions/0001-error-bodies.md) with the success:false fields. */
export const WsTokenAmbiguousBody = v.strictObject({
  ...ErrorBody.entries,
  code: v.picklist(['duplicate_credentials', 'conflicting_credentials']),
  ...refusal,
});

/** GET /ws-token while banned: the 429 body with the success:false fields. */
export const WsTokenTooManyBody = v.strictObject({ ...TooManyAttemptsBody.entries, ...refusal });
