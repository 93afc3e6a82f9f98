import { err, ok, parseDuration, TOKEN_VIOLATION_MESSAGES, type ApiKeyScope, type Core, type LiftRefusal, type Result, type SecurityEvent, type SecurityEventSink, type SecurityEventVia, type TokenViolation, type VerifiedCredential } from '@webui/core';
import type { Context } from 'hono';
import { apiKeyJson, KEY_REFUSAL_DETAIL, type ApiKeyJson } from './api-key-body.js';
import type { AppLogger, WebuiEnv } from './app-env.js';
import { banEntryJson, type BanEntryJson } from './ban-entry-body.js';

/** Who asked for a change: a client address over the API, or a local command (no address). */
export interface Actor {
  address: string | null;
  via: SecurityEventVia;
  /** What the API caller presented: an API key may not lift its own ban (see liftBans). */
  credential?: VerifiedCredential;
}

/** The client of an API request, as the edge resolved it, and the credential the session guard accepted. */
export function apiActor(c: Context<WebuiEnv>): Actor {
  const principal = c.get('principal');
  return { address: c.get('clientIp'), via: 'api', ...(principal ? { credential: principal.kind } : {}) };
}

export const OWN_BAN_DETAIL =
  'An API key may not lift the ban or clear the failures of the address it is used from (a target covering it, `all` included); the operator can, with `webui bans lift` on the server.';

export type KeyRefusal = keyof typeof KEY_REFUSAL_DETAIL;

// Omit over each member of the union, so every event keeps its own fields.
type EventFields<E = SecurityEvent> = E extends SecurityEvent ? Omit<E, 'address' | 'via'> : never;

/** The sentence for a token refused by the strength rules (DESIGN D5), naming every rule it broke. */
export function weakTokenDetail(violations: readonly TokenViolation[]): string {
  return `The new token needs ${violations.map((violation) => TOKEN_VIOLATION_MESSAGES[violation]).join('; ')}.`;
}

export function unknownKeyDetail(name: string): string {
  return `No API key is named ${JSON.stringify(name.slice(0, 100))}.`;
}

/**
 * The changes an operator makes, each done once for every transport (the HTTP routes, the control socket,
 * the CLI on a stopped server's directory): the core's call, the log line and the security event.
 */
export class OperatorActions {
  constructor(
    private readonly core: Pick<Core, 'tokens' | 'keys' | 'setup' | 'bans'>,
    private readonly audit: SecurityEventSink,
    /** The server's log; the CLI acting on a stopped server's directory has only the audit trail. */
    private readonly logger?: AppLogger,
  ) {}

  /**
   * Lifts bans as BanPolicy.lift does. An API key's own client key is refused: a key that could clear its own count
   * could guess the token without end. The access token's session may (its holder has the token already), and
   * local commands have no address to spare.
   */
  async liftBans(target: string, actor: Actor): Promise<Result<BanEntryJson[], 'invalid_ban_target' | 'own_ban'>> {
    const caller = actor.credential === 'key' && actor.address !== null ? { caller: actor.address } : {};
    const result = await this.core.bans.lift(target, caller);
    if (!result.ok) return err(liftRefusal(result.error, actor, target, this.logger));
    const lifted = result.value.map(banEntryJson);
    const keys = lifted.map((entry) => entry.key);
    this.log(actor, { target, lifted: keys }, keys.length > 0 ? 'bans lifted' : 'ban lift matched nothing');
    if (keys.length > 0) this.record(actor, { event: 'ban_lifted', target, lifted: keys });
    return ok(lifted);
  }

  /** Forgets the global failure budget's failures (bans and per-address counts stay); returns how many. */
  async resetBudget(actor: Actor): Promise<number> {
    const cleared = await this.core.bans.resetBudget();
    this.log(actor, { cleared }, 'global failure budget reset');
    this.record(actor, { event: 'budget_reset', cleared });
    return cleared;
  }

  /** `expires` as operators type it (`90d`), null for never; the key itself is in this result and nowhere else. */
  async createKey(request: { name: string; scope: ApiKeyScope; expires: string | null }, actor: Actor): Promise<Result<{ key: string; entry: ApiKeyJson }, KeyRefusal>> {
    const { name, scope, expires } = request;
    const lifetimeMs = expires === null ? null : parseDuration(expires);
    if (expires !== null && lifetimeMs === null) return err('invalid_expiry');
    const created = await this.core.keys.create({ name, scope, lifetimeMs });
    if (!created.ok) return err(created.error);
    const entry = apiKeyJson(created.value.entry);
    this.log(actor, { key: name, scope, expiresAt: entry.expires_at }, 'API key created');
    this.record(actor, { event: 'key_created', key: name, scope, expires_at: entry.expires_at });
    return ok({ key: created.value.key, entry });
  }

  /** Revokes the key named `name`; null when there is none. */
  async revokeKey(name: string, actor: Actor): Promise<ApiKeyJson | null> {
    const revoked = await this.core.keys.revoke(name);
    return revoked ? this.revoked([apiKeyJson(revoked)], actor)[0] ?? null : null;
  }

  async revokeAllKeys(actor: Actor): Promise<ApiKeyJson[]> {
    return this.revoked((await this.core.keys.revokeAll()).map(apiKeyJson), actor);
  }

  async updateToken(token: string, actor: Actor): Promise<Result<void, TokenViolation[]>> {
    const result = await this.core.tokens.update(token);
    if (!result.ok) return err(result.error.violations);
    this.tokenChanged('update', actor);
    return ok(undefined);
  }

  /** Returns the new token, shown once. */
  async regenerateToken(actor: Actor): Promise<string> {
    const { token } = await this.core.tokens.regenerate();
    this.tokenChanged('regenerate', actor);
    return token;
  }

  /** Returns the new `is_first_setup`. */
  async completeSetup(actor: Actor): Promise<boolean> {
    const isFirstSetup = await this.core.setup.complete();
    this.log(actor, {}, 'first setup completed');
    this.record(actor, { event: 'setup_completed' });
    return isFirstSetup;
  }

  async resetSetup(actor: Actor): Promise<boolean> {
    const isFirstSetup = await this.core.setup.reset();
    this.log(actor, {}, 'first setup reset');
    this.record(actor, { event: 'setup_reset' });
    return isFirstSetup;
  }

  private revoked(entries: ApiKeyJson[], actor: Actor): ApiKeyJson[] {
    for (const { name } of entries) {
      this.log(actor, { key: name }, 'API key revoked');
      this.record(actor, { event: 'key_revoked', key: name });
    }
    return entries;
  }

  private tokenChanged(how: 'update' | 'regenerate', actor: Actor): void {
    this.log(actor, { tokenSource: 'configured', how }, 'access token changed');
    this.record(actor, { event: 'token_changed', how });
  }

  private log(actor: Actor, fields: object, message: string): void {
    this.logger?.info({ ...(actor.address === null ? {} : { ip: actor.address }), ...fields, via: actor.via }, message);
  }

  private record(actor: Actor, event: EventFields): void {
    this.audit.record({ ...event, address: actor.address, via: actor.via } as SecurityEvent);
  }
}

function liftRefusal(refusal: LiftRefusal, actor: Actor, target: string, logger: AppLogger | undefined): 'invalid_ban_target' | 'own_ban' {
  if (refusal === 'invalid_target') return 'invalid_ban_target';
  // Warned: an API key trying to clear its own count is what a token-guessing script would do.
  logger?.warn({ ...(actor.address === null ? {} : { ip: actor.address }), target, via: actor.via }, 'ban lift refused: an API key may not lift its own ban');
  return 'own_ban';
}
