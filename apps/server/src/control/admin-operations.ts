import { parseDuration, TOKEN_VIOLATION_MESSAGES, type Core, type SecurityEvent, type SecurityEventSink, type SecurityEventVia } from '@webui/core';
import { apiKeyJson, KEY_REFUSAL_DETAIL, type AppLogger } from '@webui/http-hono';
import type { AdminAnswer, AdminRefusal, AdminRefusalCode, AdminRequest } from './admin-protocol.js';

export interface AdminContext {
  core: Core;
  audit: SecurityEventSink;
  via: SecurityEventVia;
  /** The running server's log; the CLI acting on a stopped server's directory has only the audit trail. */
  logger?: AppLogger;
}

// Omit over each member of the union, so every event keeps its own fields.
type EventFields<E = SecurityEvent> = E extends SecurityEvent ? Omit<E, 'address' | 'via'> : never;

/**
 * Performs one admin request over the core and records its security event: the one implementation
 * behind the control socket (a running server) and the CLI (no server). Never echoes a token given to it.
 */
export async function performAdminOperation(request: AdminRequest, { core, audit, via, logger }: AdminContext): Promise<AdminAnswer> {
  // Local actions have no client address (DESIGN: security events).
  const record = (event: EventFields) => audit.record({ ...event, address: null, via });
  switch (request.op) {
    case 'keys.list':
      return { ok: true, keys: (await core.keys.list()).map(apiKeyJson) };
    case 'keys.create': {
      const { name, scope, expires } = request;
      const lifetimeMs = expires === null ? null : parseDuration(expires);
      if (expires !== null && lifetimeMs === null) return refusal('invalid_expiry', KEY_REFUSAL_DETAIL.invalid_expiry);
      const result = await core.keys.create({ name, scope, lifetimeMs });
      if (!result.ok) return refusal(result.error, KEY_REFUSAL_DETAIL[result.error]);
      const created = apiKeyJson(result.value.entry);
      logger?.info({ key: name, scope, expiresAt: created.expires_at, via }, 'API key created');
      record({ event: 'key_created', key: name, scope, expires_at: created.expires_at });
      return { ok: true, key: result.value.key, created };
    }
    case 'keys.revoke': {
      const revoked = 'all' in request ? await core.keys.revokeAll() : [await core.keys.revoke(request.name)];
      if ('name' in request && revoked[0] === null) return refusal('unknown_key', `No API key is named ${JSON.stringify(request.name.slice(0, 100))}.`);
      const entries = revoked.filter((entry) => entry !== null).map(apiKeyJson);
      for (const { name } of entries) {
        logger?.info({ key: name, via }, 'API key revoked');
        record({ event: 'key_revoked', key: name });
      }
      return { ok: true, revoked: entries };
    }
    case 'token.set': {
      const result = await core.tokens.update(request.token);
      if (!result.ok) return refusal('weak_token', `The new token needs ${result.error.violations.map((violation) => TOKEN_VIOLATION_MESSAGES[violation]).join('; ')}.`);
      logger?.info({ tokenSource: 'configured', how: 'update', via }, 'access token changed');
      record({ event: 'token_changed', how: 'update' });
      return { ok: true };
    }
    case 'token.regenerate': {
      const { token } = await core.tokens.regenerate();
      logger?.info({ tokenSource: 'configured', how: 'regenerate', via }, 'access token changed');
      record({ event: 'token_changed', how: 'regenerate' });
      return { ok: true, token };
    }
    case 'setup.status':
      return setupAnswer(core, await core.setup.isFirstSetup());
    case 'setup.complete': {
      const isFirstSetup = await core.setup.complete();
      logger?.info({ via }, 'first setup completed');
      record({ event: 'setup_completed' });
      return setupAnswer(core, isFirstSetup);
    }
    case 'setup.reset': {
      const isFirstSetup = await core.setup.reset();
      logger?.info({ via }, 'first setup reset');
      record({ event: 'setup_reset' });
      return setupAnswer(core, isFirstSetup);
    }
  }
}

async function setupAnswer(core: Core, isFirstSetup: boolean): Promise<AdminAnswer> {
  return { ok: true, is_first_setup: isFirstSetup, token_source: (await core.tokens.status()).tokenSource };
}

function refusal(code: AdminRefusalCode, detail: string): AdminRefusal {
  return { ok: false, code, detail };
}
