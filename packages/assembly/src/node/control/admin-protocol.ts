import { schemas } from '../../index.js';
import * as v from 'valibot';
import { BudgetBody } from './budget-body.js';
import { ControlRefusal as Refusal } from './control-refusal.js';

/**
 * The operator's requests (keys, token, first setup, bans): the running server answers them on its
 * control socket, and the CLI answers them itself when no server runs (admin-operations.ts).
 */
export const AdminRequest = v.variant('op', [
  v.object({ op: v.literal('bans.list') }),
  v.object({ op: v.literal('bans.lift'), target: v.string() }),
  v.object({ op: v.literal('bans.reset_budget') }),
  v.object({ op: v.literal('keys.list') }),
  v.object({ op: v.literal('keys.create'), name: v.string(), scope: v.picklist(['read', 'admin']), expires: v.nullable(v.string()) }),
  v.object({ op: v.literal('keys.revoke'), name: v.string() }),
  v.object({ op: v.literal('keys.revoke'), all: v.literal(true) }),
  v.object({ op: v.literal('token.set'), token: v.string() }),
  v.object({ op: v.literal('token.regenerate') }),
  v.object({ op: v.literal('setup.status') }),
  v.object({ op: v.literal('setup.complete') }),
  v.object({ op: v.literal('setup.reset') }),
  // Server only: the pair a running server serves (`webui tls reload`).
  v.object({ op: v.literal('tls.reload') }),
]);
export type AdminRequest = v.InferOutput<typeof AdminRequest>;
export type AdminOp = AdminRequest['op'];

export type AdminRefusalCode =
  | 'invalid_ban_target'
  | 'own_ban'
  | 'invalid_key_name'
  | 'key_name_taken'
  | 'too_many_keys'
  | 'invalid_expiry'
  | 'unknown_key'
  | 'weak_token'
  | 'no_data'
  | 'no_tls'
  | 'tls_refused';

const SetupAnswer = v.union([
  v.object({ ok: v.literal(true), is_first_setup: v.boolean(), token_source: v.picklist(['temporary', 'configured']) }),
  Refusal,
]);

/**
 * Each request's answer, in the HTTP API's key and ban entry shapes (apiKeyJson, banEntryJson); the CLI checks both paths' answers
 * against these.
 */
export const ADMIN_ANSWERS = {
  'bans.list': v.union([v.object({ ok: v.literal(true), bans: v.array(schemas.BanEntryBody), budget: BudgetBody }), Refusal]),
  'bans.lift': v.union([v.object({ ok: v.literal(true), lifted: v.array(schemas.BanEntryBody) }), Refusal]),
  'bans.reset_budget': v.union([v.object({ ok: v.literal(true), cleared: v.number(), budget: BudgetBody }), Refusal]),
  'keys.list': v.union([v.object({ ok: v.literal(true), keys: v.array(schemas.ApiKeyBody) }), Refusal]),
  // The key itself travels only over the 0600 socket, to be printed once by the CLI.
  'keys.create': v.union([v.object({ ok: v.literal(true), key: v.string(), created: schemas.ApiKeyBody }), Refusal]),
  'keys.revoke': v.union([v.object({ ok: v.literal(true), revoked: v.array(schemas.ApiKeyBody) }), Refusal]),
  'token.set': v.union([v.object({ ok: v.literal(true) }), Refusal]),
  'token.regenerate': v.union([v.object({ ok: v.literal(true), token: v.string() }), Refusal]),
  'setup.status': SetupAnswer,
  'setup.complete': SetupAnswer,
  'setup.reset': SetupAnswer,
  'tls.reload': v.union([
    v.object({
      ok: v.literal(true),
      changed: v.boolean(),
      serial: v.string(),
      fingerprint: v.string(),
      names: v.array(v.string()),
      not_after: v.string(),
    }),
    Refusal,
  ]),
} as const satisfies Record<AdminOp, v.GenericSchema>;

export type AdminAnswerTo<Op extends AdminOp> = v.InferOutput<(typeof ADMIN_ANSWERS)[Op]>;
export type AdminRefusal = { ok: false; code: AdminRefusalCode; detail: string };
export type AdminAnswer = Exclude<AdminAnswerTo<AdminOp>, { ok: false }> | AdminRefusal;
