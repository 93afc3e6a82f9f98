import type { Core, SecurityEventSink, SecurityEventVia } from '@webui/core';
import { apiKeyJson, banEntryJson, KEY_REFUSAL_DETAIL, OperatorActions, OWN_BAN_DETAIL, unknownKeyDetail, weakTokenDetail, type Actor, type AppLogger } from '@webui/http-hono';
import type { AdminAnswer, AdminRefusal, AdminRefusalCode, AdminRequest } from './admin-protocol.js';
import { budgetJson } from './budget-body.js';

const INVALID_TARGET = 'the target must be `all`, an IP address, a CIDR, or a key as `webui bans list` shows it';

export interface AdminContext {
  core: Core;
  audit: SecurityEventSink;
  via: SecurityEventVia;
  /** The running server's log; the CLI acting on a stopped server's directory has only the audit trail. */
  logger?: AppLogger;
}

/**
 * Performs one admin request through the operator actions the HTTP routes use (the core's call, the log
 * line, the security event): the one implementation behind the control socket (a running server) and the
 * CLI (no server). Never echoes a token given to it.
 */
export async function performAdminOperation(request: AdminRequest, { core, audit, via, logger }: AdminContext): Promise<AdminAnswer> {
  const actions = new OperatorActions(core, audit, logger);
  // Local actions have no client address.
  const actor: Actor = { address: null, via };
  switch (request.op) {
    case 'bans.list':
      return { ok: true, bans: (await core.bans.list()).map(banEntryJson), budget: budgetJson(await core.bans.budget()) };
    case 'bans.lift': {
      const result = await actions.liftBans(request.target, actor);
      // The same rule as over HTTP; a local actor has no address and no key, so the operator may lift any ban.
      if (!result.ok) return result.error === 'own_ban' ? refusal('own_ban', OWN_BAN_DETAIL) : refusal('invalid_ban_target', INVALID_TARGET);
      return { ok: true, lifted: result.value };
    }
    case 'bans.reset_budget': {
      const cleared = await actions.resetBudget(actor);
      return { ok: true, cleared, budget: budgetJson(await core.bans.budget()) };
    }
    case 'keys.list':
      return { ok: true, keys: (await core.keys.list()).map(apiKeyJson) };
    case 'keys.create': {
      const result = await actions.createKey(request, actor);
      if (!result.ok) return refusal(result.error, KEY_REFUSAL_DETAIL[result.error]);
      return { ok: true, key: result.value.key, created: result.value.entry };
    }
    case 'keys.revoke': {
      if ('all' in request) return { ok: true, revoked: await actions.revokeAllKeys(actor) };
      const revoked = await actions.revokeKey(request.name, actor);
      if (!revoked) return refusal('unknown_key', unknownKeyDetail(request.name));
      return { ok: true, revoked: [revoked] };
    }
    case 'token.set': {
      const result = await actions.updateToken(request.token, actor);
      if (!result.ok) return refusal('weak_token', weakTokenDetail(result.error));
      return { ok: true };
    }
    case 'token.regenerate':
      return { ok: true, token: await actions.regenerateToken(actor) };
    case 'setup.status':
      return setupAnswer(core, await core.setup.isFirstSetup());
    case 'setup.complete':
      return setupAnswer(core, await actions.completeSetup(actor));
    case 'setup.reset':
      return setupAnswer(core, await actions.resetSetup(actor));
  }
}

async function setupAnswer(core: Core, isFirstSetup: boolean): Promise<AdminAnswer> {
  return { ok: true, is_first_setup: isFirstSetup, token_source: (await core.tokens.status()).tokenSource };
}

function refusal(code: AdminRefusalCode, detail: string): AdminRefusal {
  return { ok: false, code, detail };
}
