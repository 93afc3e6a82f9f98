import * as v from 'valibot';
import { ErrorBody, TooManyAttemptsBody } from '../../schemas/error.js';
import { KeyScope } from '../keys/keys-schemas.js';

/** The request messages reach callers in the `detail` (docs/decisions/0001-error-bodies.md). */
export const VerifyRequest = v.object({
  token: v.string('token must be a string'),
});

export const UpdateTokenRequest = v.object({
  new_token: v.string('new_token must be a string'),
});

export const TokenSource = v.pipe(
  v.picklist(['temporary', 'configured']),
  v.description('`temporary`: printed at start and never saved; `configured`: set by the operator or POST /auth/update.'),
);

const message = v.pipe(v.string(), v.description('A sentence for humans.'));

export const VerifyResponse = v.variant('valid', [
  v.strictObject({
    valid: v.literal(true),
    message,
    is_first_setup: v.boolean(),
    token_source: TokenSource,
    requires_custom_token: v.boolean(),
  }),
  v.strictObject({
    valid: v.literal(false),
    message,
    remaining_attempts: v.optional(v.pipe(v.number(), v.integer(), v.description('Present when 2 or fewer attempts remain.'))),
  }),
]);

/** POST /auth/verify while banned, or the failure that started the ban: the 429 body with the login page's fields. */
export const VerifyTooManyBody = v.strictObject({ ...TooManyAttemptsBody.entries, valid: v.literal(false), message });

export const CheckResponse = v.variant('authenticated', [
  v.strictObject({
    authenticated: v.literal(true),
    token_source: TokenSource,
    requires_custom_token: v.boolean(),
    key: v.optional(
      v.pipe(
        v.strictObject({ name: v.string(), scope: KeyScope }),
        v.description('Present when the credential is an API key: its name and scope.'),
      ),
    ),
  }),
  v.strictObject({ authenticated: v.literal(false) }),
]);

const ambiguousCode = v.pipe(
  v.picklist(['duplicate_credentials', 'conflicting_credentials']),
  v.description('Two cookies or two Authorization headers, or a cookie and a bearer that differ.'),
);

/** GET /auth/check with more than one credential: a 400 (docs/decisions/0001-error-bodies.md) that still says not authenticated. */
export const CheckAmbiguousBody = v.strictObject({ ...ErrorBody.entries, code: ambiguousCode, authenticated: v.literal(false) });

/** GET /auth/check while banned: the 429 body that still says not authenticated. */
export const CheckTooManyBody = v.strictObject({ ...TooManyAttemptsBody.entries, authenticated: v.literal(false) });

export const UpdateTokenResponse = v.strictObject({ success: v.literal(true), message });

export const WeakTokenBody = v.strictObject({
  ...ErrorBody.entries,
  code: v.literal('weak_token'),
  success: v.literal(false),
  message,
  violations: v.array(
    v.picklist([
      'too_short',
      'too_long',
      'missing_uppercase',
      'missing_lowercase',
      'missing_special',
      'invalid_characters',
      'same_as_current',
    ]),
  ),
});

export const RegenerateResponse = v.strictObject({
  success: v.literal(true),
  token: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('The new token; shown only in this response.')),
  message,
});

export const LogoutResponse = v.strictObject({ success: v.literal(true), message: v.literal('已成功登出') });
