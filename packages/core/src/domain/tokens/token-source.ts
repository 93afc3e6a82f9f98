import type { TokenRecord, TokenSource } from '../../ports/store.js';

const GENERATED_TOKEN = /^[0-9a-f]{64}$/;

/** Whether `token` has the shape of one the server generates (a temporary or regenerated token): 64 lowercase hex. */
export function isGeneratedToken(token: string): boolean {
  return GENERATED_TOKEN.test(token);
}

/** Files written before token_source existed: a 64-hex token was generated, anything else was chosen (docs/decisions/0012-token-file.md). */
export function resolveTokenSource(record: TokenRecord): TokenSource {
  if (record.tokenSource) return record.tokenSource;
  return isGeneratedToken(record.accessToken) ? 'temporary' : 'configured';
}
