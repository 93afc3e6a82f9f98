/** Cryptographically strong random bytes (crypto.getRandomValues in production, seeded in tests). */
export interface RandomSource {
  bytes(length: number): Uint8Array;
}
