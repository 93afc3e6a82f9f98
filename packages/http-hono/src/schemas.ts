import * as v from 'valibot';

// One file for every body the API reads or writes: the routes validate requests with these,
// and the OpenAPI document is generated from the very same schemas.

/** Request bodies of the specification; the messages reach callers in the D1 `detail`. */
export const VerifyRequest = v.object({
  token: v.string('token must be a string'),
});

export const UpdateTokenRequest = v.object({
  new_token: v.string('new_token must be a string'),
});

const TokenSourceSchema = v.picklist(['temporary', 'configured']);

/** DESIGN D1: every non-2xx answer. Some endpoints add their own fields beside these. */
export const ErrorBody = v.looseObject({
  detail: v.pipe(v.string(), v.description('A sentence for humans.')),
  code: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/), v.description('A stable snake_case code for scripts.')),
});

export const TooManyAttemptsBody = v.looseObject({
  ...ErrorBody.entries,
  retry_after: v.pipe(v.number(), v.integer(), v.description('Seconds until the ban ends; also in the Retry-After header.')),
});

export const WeakTokenBody = v.object({
  ...ErrorBody.entries,
  success: v.literal(false),
  message: v.string(),
  violations: v.array(v.picklist(['too_short', 'too_long', 'missing_uppercase', 'missing_lowercase', 'missing_special', 'invalid_characters', 'same_as_current'])),
});

export const HealthResponse = v.object({ status: v.literal('healthy'), service: v.string() });

export const VerifyResponse = v.union([
  v.object({
    valid: v.literal(true),
    message: v.string(),
    is_first_setup: v.boolean(),
    token_source: TokenSourceSchema,
    requires_custom_token: v.boolean(),
  }),
  v.object({
    valid: v.literal(false),
    message: v.string(),
    remaining_attempts: v.optional(v.pipe(v.number(), v.integer(), v.description('Present when 2 or fewer attempts remain.'))),
  }),
]);

export const CheckResponse = v.union([
  v.object({ authenticated: v.literal(true), token_source: TokenSourceSchema, requires_custom_token: v.boolean() }),
  v.object({ authenticated: v.literal(false) }),
]);

export const SuccessResponse = v.object({ success: v.literal(true), message: v.string() });

export const RegenerateResponse = v.object({
  success: v.literal(true),
  token: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('The new token; shown only in this response.')),
  message: v.string(),
});

export const LogoutResponse = v.object({ success: v.literal(true), message: v.literal('已成功登出') });

export const SetupStatusResponse = v.object({
  is_first_setup: v.boolean(),
  token_source: TokenSourceSchema,
  requires_custom_token: v.boolean(),
  message: v.string(),
});

export const SetupChangeResponse = v.object({ success: v.literal(true), message: v.string(), is_first_setup: v.boolean() });

export const WsTokenResponse = v.union([
  v.object({
    success: v.literal(true),
    token: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/), v.description('One-time ticket for GET /ws?token=.')),
    expires_in: v.literal(60),
  }),
  v.object({ success: v.literal(false), message: v.string() }),
]);

/** One client key with counted failures or a running ban, as GET /security/bans lists it. */
export const BanEntryBody = v.object({
  key: v.pipe(v.string(), v.description('The client key: an IPv4 address, an IPv6 /64 (`2001:db8:1:2::/64`), or another peer name.')),
  failures: v.pipe(v.number(), v.integer(), v.description('Failures counted in the 5-minute window; 0 while banned.')),
  banned_until: v.pipe(v.nullable(v.string()), v.description('ISO 8601 end of the running ban, or null.')),
  last_attempt: v.pipe(v.nullable(v.string()), v.description('ISO 8601 time of the last counted failure, or null.')),
});

export const BanListResponse = v.object({ bans: v.array(BanEntryBody) });

export const BanLiftResponse = v.object({
  success: v.literal(true),
  lifted: v.pipe(v.array(BanEntryBody), v.description('What was lifted, as it was listed just before; empty when nothing matched.')),
});

const KeyScopeSchema = v.pipe(v.picklist(['read', 'admin'], 'scope must be "read" or "admin"'), v.description('`read`: GET endpoints and the WebSocket. `admin`: everything but managing keys and changing the access token.'));

/** POST /keys: a name, a scope (read by default) and an optional lifetime (`90d`; absent or null: never expires). */
export const CreateKeyRequest = v.object({
  name: v.pipe(v.string('name must be a string'), v.description('1 to 64 characters: letters, digits, `.`, `_`, `-`; starting with a letter or digit.')),
  scope: v.optional(KeyScopeSchema, 'read'),
  expires: v.optional(v.pipe(v.nullable(v.string('expires must be a string such as "90d"')), v.description('A lifetime: a whole number and s, m, h, d or w (`90d`); null or absent: never.')), null),
});

/** One API key as listed: its metadata, never the key. */
export const ApiKeyBody = v.object({
  name: v.string(),
  scope: v.picklist(['read', 'admin']),
  created_at: v.pipe(v.string(), v.description('ISO 8601.')),
  expires_at: v.pipe(v.nullable(v.string()), v.description('ISO 8601, or null: never expires.')),
  last_used_at: v.pipe(v.nullable(v.string()), v.description('ISO 8601, written at most once a minute; null: never used.')),
  expired: v.boolean(),
});

export const KeyListResponse = v.object({ keys: v.array(ApiKeyBody) });

export const KeyCreatedResponse = v.object({
  success: v.literal(true),
  key: v.pipe(v.string(), v.description('The key itself: `wk_` and 43 URL-safe characters. Shown only in this answer; send it as `Authorization: Bearer <key>`.')),
  message: v.string(),
  ...ApiKeyBody.entries,
});

export const KeyRevokedResponse = v.object({ success: v.literal(true), revoked: ApiKeyBody });
