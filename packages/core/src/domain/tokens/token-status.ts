import type { TokenRecord, TokenSource } from '../../ports/store.js';
import { isGeneratedToken, resolveTokenSource } from './token-source.js';
import { TOKEN_VIOLATION_MESSAGES, tokenViolations, type TokenViolation } from './token-strength.js';

export interface TokenStatus {
  tokenSource: TokenSource;
  /** The dashboard's wizard asks for a custom token while this is true: a temporary token, or a weak one however it got there. */
  requiresCustomToken: boolean;
}

/**
 * The strength rules (docs/decisions/0005-weak-tokens.md) the token in force breaks, however it got there (a hand edit, an import,
 * a file from an older version); empty when it meets them or has the shape the server generates
 * (64 lowercase hex: 256 random bits, though without upper case or a special character).
 */
export function tokenWeakness(accessToken: string): TokenViolation[] {
  return isGeneratedToken(accessToken) ? [] : tokenViolations(accessToken);
}

/** The one rule for what every route and the /auth/check fast path report about the token in force. */
export function tokenStatus(record: TokenRecord): TokenStatus {
  const tokenSource = resolveTokenSource(record);
  return { tokenSource, requiresCustomToken: tokenSource === 'temporary' || tokenWeakness(record.accessToken).length > 0 };
}

/** The operator's sentence for a weak token: the rules it breaks, never the token. */
export function describeTokenWeakness(rules: readonly TokenViolation[]): string {
  return `the access token is weak: it needs ${rules.map((rule) => TOKEN_VIOLATION_MESSAGES[rule]).join('; ')}`;
}
