import type { CreateKeyRefusal } from '../domain/api-keys.js';
import { describeTokenWeakness } from '../domain/tokens/token-status.js';
import { TOKEN_VIOLATION_MESSAGES, type TokenViolation } from '../domain/tokens/token-strength.js';
import type { AmbiguousCredentials } from './presented-credentials.js';

/** Why a key was not created, in words: the sentences every transport answers with (the HTTP API, the CLI). */
export const KEY_REFUSAL_DETAIL: Record<CreateKeyRefusal | 'invalid_expiry', string> = {
  invalid_key_name: 'A key name is 1 to 64 characters: letters, digits, `.`, `_` or `-`, starting with a letter or digit.',
  key_name_taken: 'A key with this name exists; revoke it first or choose another name.',
  too_many_keys: 'There are 100 keys already; revoke some first.',
  invalid_expiry: 'expires must be a whole number and s, m, h, d or w (e.g. 90d), at most ten years.',
};

export const OWN_BAN_DETAIL =
  'An API key may not lift the ban or clear the failures of the address it is used from (a target covering it, `all` included); the ' +
  'operator can, with `webui bans lift` on the server.';

export const AMBIGUOUS_CREDENTIALS_DETAIL: Record<AmbiguousCredentials, string> = {
  duplicate_credentials:
    'The request carries more than one credential (bot_session cookies, Authorization headers or token parameters); send exactly one. It ' +
    'counts as a failed attempt.',
  conflicting_credentials:
    'The request carries a bot_session cookie and an Authorization bearer that differ; send one credential. It counts as a failed attempt.',
};

/** The sentence for a token refused by the strength rules (docs/decisions/0005-weak-tokens.md), naming every rule it broke. */
export function weakTokenDetail(violations: readonly TokenViolation[]): string {
  return `The new token needs ${violations.map((violation) => TOKEN_VIOLATION_MESSAGES[violation]).join('; ')}.`;
}

export function unknownKeyDetail(name: string): string {
  return `No API key is named ${JSON.stringify(name.slice(0, 100))}.`;
}

/**
 * The sentences every transport uses (the HTTP API, the CLI, the startup log, the dashboard), in one place:
 * `keyRefusal[code]`, `ownBan`, `ambiguousCredentials[code]`, `weakToken(rules)` and `unknownKey(name)` for refusals,
 * `tokenWeakness(rules)` for the operator's warning about the token in force, `tokenViolation[rule]` for one strength rule.
 */
export const DETAILS = {
  keyRefusal: KEY_REFUSAL_DETAIL,
  ownBan: OWN_BAN_DETAIL,
  ambiguousCredentials: AMBIGUOUS_CREDENTIALS_DETAIL,
  weakToken: weakTokenDetail,
  unknownKey: unknownKeyDetail,
  tokenWeakness: describeTokenWeakness,
  tokenViolation: TOKEN_VIOLATION_MESSAGES,
} as const;
