import type { TokenRecord, TokenSource } from './ports/store.js';

const GENERATED_TOKEN = /^[0-9a-f]{64}$/;

/** Files written before token_source existed: a 64-hex token was generated, anything else was chosen (DESIGN D12). */
export function resolveTokenSource(record: TokenRecord): TokenSource {
  if (record.tokenSource) return record.tokenSource;
  return GENERATED_TOKEN.test(record.accessToken) ? 'temporary' : 'configured';
}
