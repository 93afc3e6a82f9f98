import type { ApiKeyEntry } from '../domain/api-keys.js';
import type { BanEntry } from '../domain/bans/ban-policy.js';
import type { Core } from '../create-core.js';
import { parseDuration } from '../domain/primitives/duration.js';
import type { BudgetState } from '../domain/bans/global-failure-budget.js';
import type { ApiKeyScope } from '../ports/store.js';
import { err, ok, type Result } from '../domain/result.js';
import type { TokenStatus } from '../domain/tokens/token-service.js';
import type { TokenViolation } from '../domain/tokens/token-strength.js';
import type { Actor } from './actor.js';
import type { OperationEventSink } from './events/event-recorder.js';
import type { Done, OperationEvent } from './events/operation-event.js';
import type { KEY_REFUSAL_DETAIL } from './refusal-details.js';

export type KeyRefusal = keyof typeof KEY_REFUSAL_DETAIL;
export type LiftBanRefusal = 'invalid_ban_target' | 'own_ban';

/**
 * The changes (and the views) an operator has, one call each, the same for every transport: the HTTP routes,
 * the control socket, the CLI on a stopped server's directory. Each change records its events through `sink`.
 */
export interface OperatorOperations {
  /** The bans and failures in force, and the global failure budget as it stands. */
  listBans(): Promise<Done<{ bans: BanEntry[]; budget: BudgetState }>>;
  /**
   * Lifts bans as BanPolicy.lift does. An API key's own client key is refused: a key that could clear its own count
   * could guess the token without end. The access token's session may (its holder has the token already), and
   * local commands have no address to spare.
   */
  liftBan(target: string, actor: Actor): Promise<Done<Result<BanEntry[], LiftBanRefusal>>>;
  /** Forgets the global failure budget's failures (bans and per-address counts stay): how many, and the budget after. */
  resetBudget(actor: Actor): Promise<Done<{ cleared: number; budget: BudgetState }>>;
  listKeys(): Promise<Done<ApiKeyEntry[]>>;
  /** `expires` as operators type it (`90d`), null for never; the key itself is in this result and nowhere else. */
  createKey(
    request: { name: string; scope: ApiKeyScope; expires: string | null },
    actor: Actor,
  ): Promise<Done<Result<{ key: string; entry: ApiKeyEntry }, KeyRefusal>>>;
  /** Revokes the key named `name`; null when there is none. */
  revokeKey(name: string, actor: Actor): Promise<Done<ApiKeyEntry | null>>;
  revokeAllKeys(actor: Actor): Promise<Done<ApiKeyEntry[]>>;
  changeToken(token: string, actor: Actor): Promise<Done<Result<void, TokenViolation[]>>>;
  /** The new token, shown once. */
  regenerateToken(actor: Actor): Promise<Done<string>>;
  setupStatus(): Promise<Done<{ isFirstSetup: boolean; status: TokenStatus }>>;
  /** The new `is_first_setup`. */
  completeSetup(actor: Actor): Promise<Done<boolean>>;
  resetSetup(actor: Actor): Promise<Done<boolean>>;
}

const NO_EVENTS: readonly OperationEvent[] = [];
const view = <T>(outcome: T): Done<T> => ({ outcome, events: NO_EVENTS });

export function createOperatorOperations(
  core: Pick<Core, 'bans' | 'keys' | 'tokens' | 'setup'>,
  options: { sink: OperationEventSink },
): OperatorOperations {
  const done = <T>(outcome: T, events: OperationEvent[]): Done<T> => {
    options.sink.record(events);
    return { outcome, events };
  };
  // Who acted and through what, on every event of a change.
  const by = (actor: Actor) => ({ address: actor.address, via: actor.via });
  const revoked = (entries: ApiKeyEntry[], actor: Actor): Done<ApiKeyEntry[]> =>
    done(
      entries,
      entries.map(({ name }): OperationEvent => ({ event: 'key_revoked', key: name, ...by(actor) })),
    );

  return {
    async listBans() {
      return view({ bans: await core.bans.list(), budget: await core.bans.budget() });
    },

    async liftBan(target, actor) {
      const caller = actor.credential === 'key' && actor.address !== null ? { caller: actor.address } : {};
      const result = await core.bans.lift(target, caller);
      if (!result.ok) {
        if (result.error === 'invalid_target') return view(err('invalid_ban_target' as const));
        return done(err('own_ban' as const), [{ event: 'ban_lift_refused', target, ...by(actor) }]);
      }
      const lifted = result.value.map((entry) => entry.key);
      const event: OperationEvent =
        lifted.length > 0
          ? { event: 'ban_lifted', target, lifted, ...by(actor) }
          : { event: 'ban_lift_matched_nothing', target, ...by(actor) };
      return done(ok(result.value), [event]);
    },

    async resetBudget(actor) {
      const cleared = await core.bans.resetBudget();
      const events: OperationEvent[] = [{ event: 'budget_reset', cleared, ...by(actor) }];
      options.sink.record(events);
      return { outcome: { cleared, budget: await core.bans.budget() }, events };
    },

    async listKeys() {
      return view(await core.keys.list());
    },

    async createKey({ name, scope, expires }, actor) {
      const lifetimeMs = expires === null ? null : parseDuration(expires);
      if (expires !== null && lifetimeMs === null) return view(err('invalid_expiry' as const));
      const created = await core.keys.create({ name, scope, lifetimeMs });
      if (!created.ok) return view(err(created.error));
      const { expiresAt } = created.value.entry;
      return done(ok(created.value), [
        { event: 'key_created', key: name, scope, expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(), ...by(actor) },
      ]);
    },

    async revokeKey(name, actor) {
      const entry = await core.keys.revoke(name);
      return entry ? { ...revoked([entry], actor), outcome: entry } : view(null);
    },

    async revokeAllKeys(actor) {
      return revoked(await core.keys.revokeAll(), actor);
    },

    async changeToken(token, actor) {
      const result = await core.tokens.update(token);
      if (!result.ok) return view(err(result.error.violations));
      return done(ok(undefined), [{ event: 'token_changed', how: 'update', ...by(actor) }]);
    },

    async regenerateToken(actor) {
      const { token } = await core.tokens.regenerate();
      return done(token, [{ event: 'token_changed', how: 'regenerate', ...by(actor) }]);
    },

    async setupStatus() {
      const [isFirstSetup, status] = await Promise.all([core.setup.isFirstSetup(), core.tokens.status()]);
      return view({ isFirstSetup, status });
    },

    async completeSetup(actor) {
      return done(await core.setup.complete(), [{ event: 'setup_completed', ...by(actor) }]);
    },

    async resetSetup(actor) {
      return done(await core.setup.reset(), [{ event: 'setup_reset', ...by(actor) }]);
    },
  };
}
