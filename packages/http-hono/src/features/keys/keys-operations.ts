import { CreateKeyRequest, ErrorBody, KeyCreatedResponse, KeyListResponse, KeyRevokedResponse } from '../../schemas.js';
import { banned, unauthenticated, type Operation } from '../../openapi/documented-operation.js';

/** API keys: listing, creating, revoking. */
export const KEYS_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/keys',
    summary: 'API keys',
    description: 'Every API key with its scope, creation, expiry and last use (written at most once a minute); never the key itself.',
    access: 'session',
    responses: { 200: { description: 'The keys.', schema: KeyListResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'post',
    path: '/keys',
    summary: 'Create an API key',
    description:
      'Creates a key for scripts: `wk_` and 43 URL-safe characters, shown only in this answer and kept hashed. ' +
      'Changing the access token never revokes keys.',
    access: 'session',
    needs: 'manage_keys',
    requestBody: CreateKeyRequest,
    responses: {
      200: { description: 'Created; `key` is shown only here.', schema: KeyCreatedResponse },
      400: {
        description: 'A malformed name (`invalid_key_name`) or lifetime (`invalid_expiry`), or a cookie and bearer that differ.',
        schema: ErrorBody,
      },
      401: unauthenticated,
      403: { description: 'An API key cannot create keys (`insufficient_scope`); or a refused Origin or Host.', schema: ErrorBody },
      409: { description: 'The name is taken (`key_name_taken`) or there are 100 keys (`too_many_keys`).', schema: ErrorBody },
      429: banned,
    },
  },
  {
    method: 'delete',
    path: '/keys/{name}',
    pathParameters: { name: 'The name of the key, percent-encoded.' },
    summary: 'Revoke an API key',
    description: 'Revokes the key at once: its next request is refused and its WebSockets close with 4001.',
    access: 'session',
    needs: 'manage_keys',
    responses: {
      200: { description: 'Revoked.', schema: KeyRevokedResponse },
      401: unauthenticated,
      403: { description: 'An API key cannot revoke keys (`insufficient_scope`); or a refused Origin or Host.', schema: ErrorBody },
      404: { description: 'No key has this name (`unknown_key`).', schema: ErrorBody },
      429: banned,
    },
  },
];
