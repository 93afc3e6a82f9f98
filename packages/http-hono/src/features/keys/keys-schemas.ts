import * as v from 'valibot';

export const KeyScope = v.pipe(
  v.picklist(['read', 'admin'], 'scope must be "read" or "admin"'),
  v.description('`read`: GET endpoints and the WebSocket. `admin`: everything but managing keys and changing the access token.'),
);

/** POST /keys: a name, a scope (read by default) and an optional lifetime (`90d`; absent or null: never expires). */
export const CreateKeyRequest = v.object({
  name: v.pipe(
    v.string('name must be a string'),
    v.description('1 to 64 characters: letters, digits, `.`, `_`, `-`; starting with a letter or digit.'),
  ),
  scope: v.optional(KeyScope, 'read'),
  expires: v.optional(
    v.pipe(
      v.nullable(v.string('expires must be a string such as "90d"')),
      v.description('A lifetime: a whole number and s, m, h, d or w (`90d`); null or absent: never.'),
    ),
    null,
  ),
});

/** One API key as listed: its metadata, never the key. */
export const ApiKeyBody = v.strictObject({
  name: v.string(),
  scope: KeyScope,
  created_at: v.pipe(v.string(), v.description('ISO 8601.')),
  expires_at: v.pipe(v.nullable(v.string()), v.description('ISO 8601, or null: never expires.')),
  last_used_at: v.pipe(v.nullable(v.string()), v.description('ISO 8601, written at most once a minute; null: never used.')),
  expired: v.boolean(),
});

export const KeyListResponse = v.strictObject({ keys: v.array(ApiKeyBody) });

export const KeyCreatedResponse = v.strictObject({
  success: v.literal(true),
  key: v.pipe(
    v.string(),
    v.description('The key itself: `wk_` and 43 URL-safe characters. Shown only in this answer; send it as `Authorization: Bearer <key>`.'),
  ),
  message: v.string(),
  ...ApiKeyBody.entries,
});

export const KeyRevokedResponse = v.strictObject({ success: v.literal(true), revoked: ApiKeyBody });
