import {
  CheckAmbiguousBody,
  CheckResponse,
  CheckTooManyBody,
  ErrorBody,
  ForwardAssertionHeader,
  ForwardPrincipalHeader,
  ForwardScopeHeader,
  LogoutResponse,
  RegenerateResponse,
  UpdateTokenRequest,
  UpdateTokenResponse,
  VerifyRequest,
  VerifyResponse,
  VerifyTooManyBody,
  WeakTokenBody,
} from '../../schemas.js';
import { banned, unauthenticated, type Operation } from '../../openapi/documented-operation.js';

/** The endpoints under /auth: logging in and out, the session check, forward-auth, and changing the token. */
export const AUTH_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/auth/verify',
    summary: 'Log in with the access token',
    description: 'Sets the bot_session cookie on success. Five failures from one address within five minutes ban it for ten minutes.',
    access: 'public',
    requestBody: VerifyRequest,
    responses: {
      200: {
        description: 'Verified (cookie set), or refused with valid:false; remaining_attempts when 2 or fewer remain.',
        schema: VerifyResponse,
      },
      429: { ...banned, schema: VerifyTooManyBody },
    },
  },
  {
    method: 'get',
    path: '/auth/check',
    summary: 'Whether the cookie is a valid login',
    description:
      'Never 401: a missing or wrong cookie answers authenticated:false. A wrong cookie counts as a failed verification. ' +
      'For an API key, `key` names it and its scope.',
    access: 'public',
    responses: {
      200: { description: 'The login state.', schema: CheckResponse },
      400: {
        description:
          'More than one credential (`duplicate_credentials`, `conflicting_credentials`), with authenticated:false; ' +
          'counted as one failed attempt.',
        schema: CheckAmbiguousBody,
      },
      429: { ...banned, schema: CheckTooManyBody },
    },
  },
  {
    method: 'get',
    path: '/auth/forward',
    summary: 'Forward-auth for a proxy in front of another backend',
    description:
      "For nginx `auth_request` and Caddy `forward_auth`: the proxy asks with the original request's cookie or bearer, and lets the " +
      'request through on 204. The original method (X-Forwarded-Method or X-Original-Method, believed only from a trusted proxy; ' +
      "otherwise GET) must be within the credential's scope, and for a state change the Origin the proxy passes on must be allowed. " +
      'A wrong credential counts as a failed verification, as on every endpoint.',
    access: 'session',
    responses: {
      204: {
        description: 'The credential is good and covers the original method; the headers name the caller for the backend.',
        headers: {
          'X-WebUI-Principal': { schema: ForwardPrincipalHeader, required: true },
          'X-WebUI-Scope': { schema: ForwardScopeHeader, required: true },
          'X-WebUI-Assertion': { schema: ForwardAssertionHeader, required: false },
        },
      },
      401: {
        description: 'No credential (`not_authenticated`), a wrong cookie (`invalid_session`) or a wrong bearer (`invalid_credentials`).',
        schema: ErrorBody,
      },
      403: {
        description:
          'A read key asked about a state change (`insufficient_scope`), or a state change from an Origin that is not allowed ' +
          '(`origin_not_allowed`, `cross_site_request`); or a refused Host.',
        schema: ErrorBody,
      },
      429: banned,
    },
  },
  {
    method: 'post',
    path: '/auth/update',
    summary: 'Replace the token with a custom one',
    description: 'The current cookie is cleared; log in again with the new token.',
    access: 'session',
    needs: 'change_token',
    requestBody: UpdateTokenRequest,
    responses: {
      200: { description: 'Updated; the old token is invalid at once.', schema: UpdateTokenResponse },
      400: {
        description: 'The new token breaks strength rules (every broken rule is listed), or the body is not JSON.',
        schema: WeakTokenBody,
      },
      401: unauthenticated,
      429: banned,
    },
  },
  {
    method: 'post',
    path: '/auth/regenerate',
    summary: 'Replace the token with 64 random hex characters',
    description: 'The new token is shown only in this response; the current cookie is cleared.',
    access: 'session',
    needs: 'change_token',
    responses: { 200: { description: 'Regenerated.', schema: RegenerateResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'post',
    path: '/auth/logout',
    summary: 'Log out',
    description: 'Clears the bot_session cookie; not an error while logged out.',
    access: 'public',
    store: false,
    responses: { 200: { description: 'Logged out.', schema: LogoutResponse } },
  },
];
