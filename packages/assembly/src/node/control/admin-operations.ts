import { createOperatorOperations, EventRecorder, DETAILS, type Actor, type Core, type Logger, type SecurityEventSink } from '@webui/core';
import { apiKeyJson, banEntryJson, type TlsService } from '../../index.js';
import type { AdminAnswer, AdminRefusal, AdminRefusalCode, AdminRequest } from './admin-protocol.js';
import { budgetJson } from './budget-body.js';

const INVALID_TARGET = 'the target must be `all`, an IP address, a CIDR, or a key as `webui bans list` shows it';

export interface AdminContext {
  core: Core;
  audit: SecurityEventSink;
  via: Actor['via'];
  /** The running server's log; the CLI acting on a stopped server's directory has only the audit trail. */
  logger?: Logger;
  /** The running server's HTTPS pair, when it has one. */
  tls?: TlsService | undefined;
}

/**
 * Performs one admin request through the core's operator verbs the HTTP routes call (their events become the
 * audit and log lines in the core's EventRecorder): the one implementation behind the control socket (a running
 * server) and the CLI (no server). Never echoes a token given to it.
 */
export async function performAdminOperation(request: AdminRequest, { core, audit, via, logger, tls }: AdminContext): Promise<AdminAnswer> {
  const operations = createOperatorOperations(core, { sink: new EventRecorder(audit, logger ?? null) });
  // Local actions have no client address.
  const actor: Actor = { address: null, via };
  switch (request.op) {
    case 'bans.list': {
      const { bans, budget } = (await operations.listBans()).outcome;
      return { ok: true, bans: bans.map(banEntryJson), budget: budgetJson(budget) };
    }
    case 'bans.lift': {
      const { outcome } = await operations.liftBan(request.target, actor);
      // The same rule as over HTTP; a local actor has no address and no key, so the operator may lift any ban.
      if (!outcome.ok)
        return outcome.error === 'own_ban' ? refusal('own_ban', DETAILS.ownBan) : refusal('invalid_ban_target', INVALID_TARGET);
      return { ok: true, lifted: outcome.value.map(banEntryJson) };
    }
    case 'bans.reset_budget': {
      const { cleared, budget } = (await operations.resetBudget(actor)).outcome;
      return { ok: true, cleared, budget: budgetJson(budget) };
    }
    case 'keys.list':
      return { ok: true, keys: (await operations.listKeys()).outcome.map(apiKeyJson) };
    case 'keys.create': {
      const { outcome } = await operations.createKey(request, actor);
      if (!outcome.ok) return refusal(outcome.error, DETAILS.keyRefusal[outcome.error]);
      return { ok: true, key: outcome.value.key, created: apiKeyJson(outcome.value.entry) };
    }
    case 'keys.revoke': {
      if ('all' in request) return { ok: true, revoked: (await operations.revokeAllKeys(actor)).outcome.map(apiKeyJson) };
      const { outcome: revoked } = await operations.revokeKey(request.name, actor);
      if (!revoked) return refusal('unknown_key', DETAILS.unknownKey(request.name));
      return { ok: true, revoked: [apiKeyJson(revoked)] };
    }
    case 'token.set': {
      const { outcome } = await operations.changeToken(request.token, actor);
      if (!outcome.ok) return refusal('weak_token', DETAILS.weakToken(outcome.error));
      return { ok: true };
    }
    case 'token.regenerate':
      return { ok: true, token: (await operations.regenerateToken(actor)).outcome };
    case 'setup.status':
      return setupAnswer(core, await core.setup.isFirstSetup());
    case 'setup.complete':
      return setupAnswer(core, (await operations.completeSetup(actor)).outcome);
    case 'setup.reset':
      return setupAnswer(core, (await operations.resetSetup(actor)).outcome);
    case 'tls.reload':
      return reloadTls(tls);
  }
}

async function reloadTls(tls: TlsService | undefined): Promise<AdminAnswer> {
  if (tls === undefined) return refusal('no_tls', 'this server speaks plain HTTP: [webui.tls] is not configured');
  const outcome = await tls.reload('command');
  if (!outcome.ok) return refusal('tls_refused', `${outcome.error}; the old certificate still serves`);
  const { pair, changed } = outcome;
  return {
    ok: true,
    changed,
    serial: pair.serial,
    fingerprint: pair.fingerprint256,
    names: pair.names,
    not_after: pair.notAfter.toISOString(),
  };
}

async function setupAnswer(core: Core, isFirstSetup: boolean): Promise<AdminAnswer> {
  return { ok: true, is_first_setup: isFirstSetup, token_source: (await core.tokens.status()).tokenSource };
}

function refusal(code: AdminRefusalCode, detail: string): AdminRefusal {
  return { ok: false, code, detail };
}
