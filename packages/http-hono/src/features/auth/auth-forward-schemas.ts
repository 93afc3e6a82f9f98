import * as v from 'valibot';

/** GET /auth/forward's 204: who the proxy's request acts for, as the backend behind the proxy is told. */
export const ForwardPrincipalHeader = v.pipe(
  v.string(),
  v.regex(/^(?:session|key:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/),
  v.description('`session` (the access token: a cookie login or the token as bearer) or `key:<name>` (an API key).'),
);

/** The scope of that caller: the access token's session is `admin`, a key has its own. */
export const ForwardScopeHeader = v.pipe(
  v.picklist(['admin', 'read']),
  v.description('`admin` may change state; `read` may only read (GET, HEAD, OPTIONS).'),
);

/** A signed assertion of both for the one request asked about: only with an upstream configured and the path named by a trusted proxy. */
export const ForwardAssertionHeader = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
  v.description(
    'A JWT (HS256, 60 s) with sub = the principal, scope, the original method and path (from X-Forwarded-Uri or X-Original-URI), ' +
      'a unique jti, issuer `webui`, audience `upstream`.',
  ),
);
