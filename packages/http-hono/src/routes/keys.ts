import { parseDuration, type SecurityEventSink } from '@webui/core';
import { Hono } from 'hono';
import type { AppLogger, WebuiEnv, WebuiServices } from '../app-env.js';
import { apiKeyJson, KEY_REFUSAL_DETAIL } from '../api-key-body.js';
import { errorBody } from '../error-body.js';
import { readJsonBody } from '../json-body.js';
import { requires } from '../middleware/session-guard.js';
import { CreateKeyRequest } from '../schemas.js';

const REFUSAL_STATUS = { invalid_key_name: 400, key_name_taken: 409, too_many_keys: 409 } as const;

/** /keys: API keys for scripts. Listing needs a session; creating and revoking need the access token's. */
export function keysRoutes(services: WebuiServices, logger: AppLogger, audit: SecurityEventSink) {
  const { keys } = services;
  return new Hono<WebuiEnv>()
    .get('/keys', async (c) => c.json({ keys: (await keys.list()).map(apiKeyJson) }))
    .post('/keys', requires('manage_keys'), async (c) => {
      const body = await readJsonBody(c, CreateKeyRequest);
      if (!body.ok) return body.response;
      const { name, scope, expires } = body.value;
      const lifetimeMs = expires === null ? null : parseDuration(expires);
      if (lifetimeMs === null && expires !== null) return errorBody(c, 400, 'invalid_expiry', KEY_REFUSAL_DETAIL.invalid_expiry);
      const result = await keys.create({ name, scope, lifetimeMs });
      if (!result.ok) return errorBody(c, REFUSAL_STATUS[result.error], result.error, KEY_REFUSAL_DETAIL[result.error]);
      const entry = apiKeyJson(result.value.entry);
      logger.info({ ip: c.get('clientIp'), key: name, scope, expiresAt: entry.expires_at }, 'API key created');
      audit.record({ event: 'key_created', address: c.get('clientIp'), via: 'api', key: name, scope, expires_at: entry.expires_at });
      return c.json({ success: true as const, key: result.value.key, message: 'Key created. It is shown only in this answer; send it as Authorization: Bearer <key>.', ...entry });
    })
    .delete('/keys/:name', requires('manage_keys'), async (c) => {
      // Hono hands the path parameter over percent-decoded.
      const name = c.req.param('name');
      const revoked = await keys.revoke(name);
      if (!revoked) return errorBody(c, 404, 'unknown_key', `No API key is named ${JSON.stringify(name.slice(0, 100))}.`);
      logger.info({ ip: c.get('clientIp'), key: name }, 'API key revoked');
      audit.record({ event: 'key_revoked', address: c.get('clientIp'), via: 'api', key: name });
      return c.json({ success: true as const, revoked: apiKeyJson(revoked) });
    });
}
