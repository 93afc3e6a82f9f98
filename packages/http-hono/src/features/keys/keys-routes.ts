import { DETAILS, type OperatorOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { apiActor } from '../../session/api-actor.js';
import { apiKeyJson } from './api-key-body.js';
import { errorBody } from '../../answers/error-body.js';
import { readJsonBody } from '../../answers/json-body.js';
import { requires } from '../../middleware/access/session-guard.js';
import { CreateKeyRequest } from '../../schemas.js';
import type { WireBody } from '../../wire-body.js';

const REFUSAL_STATUS = { invalid_key_name: 400, invalid_expiry: 400, key_name_taken: 409, too_many_keys: 409 } as const;

/** /keys: API keys for scripts. Listing needs a session; creating and revoking need the access token's. */
export function keysRoutes(operations: Pick<OperatorOperations, 'listKeys' | 'createKey' | 'revokeKey'>) {
  return new Hono<WebuiEnv>()
    .get('/keys', async (c) => {
      const listed: WireBody<'KeyListResponse'> = { keys: (await operations.listKeys()).outcome.map(apiKeyJson) };
      return c.json(listed);
    })
    .post('/keys', requires('manage_keys'), async (c) => {
      const body = await readJsonBody(c, CreateKeyRequest);
      if (!body.ok) return body.response;
      const { outcome } = await operations.createKey(body.value, apiActor(c));
      if (!outcome.ok) return errorBody(c, REFUSAL_STATUS[outcome.error], outcome.error, DETAILS.keyRefusal[outcome.error]);
      const message = 'Key created. It is shown only in this answer; send it as Authorization: Bearer <key>.';
      const created: WireBody<'KeyCreatedResponse'> = {
        success: true,
        key: outcome.value.key,
        message,
        ...apiKeyJson(outcome.value.entry),
      };
      return c.json(created);
    })
    .delete('/keys/:name', requires('manage_keys'), async (c) => {
      // Hono hands the path parameter over percent-decoded.
      const name = c.req.param('name');
      const { outcome: revoked } = await operations.revokeKey(name, apiActor(c));
      if (!revoked) return errorBody(c, 404, 'unknown_key', DETAILS.unknownKey(name));
      return c.json({ success: true, revoked: apiKeyJson(revoked) } satisfies WireBody<'KeyRevokedResponse'>);
    });
}
