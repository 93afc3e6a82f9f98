/** Fingerprints of tokens that were the access token lately: a cookie holding one is a stale session, not a guess. */
export interface RetiredTokenStore {
  /** Remembers the fingerprint of a token that was valid, until `until`; the store may forget the oldest when full. */
  retireToken(fingerprint: string, until: number): Promise<void>;
  isRetiredToken(fingerprint: string): Promise<boolean>;
}
