import type { RandomSource } from '../ports/random-source.js';
import { randomBase64Url } from './primitives/random-encoding.js';
import { sha256Hex } from './primitives/sha256-hex.js';

/** Every key starts so: a secret scanner, a log reviewer or the server itself tells it from a token at a glance. */
export const API_KEY_PREFIX = 'wk_';

const KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43}$/;

/** A new key: `wk_` and 43 URL-safe characters from 32 random bytes. */
export function newApiKey(random: RandomSource): string {
  return API_KEY_PREFIX + randomBase64Url(random, 32);
}

/** Whether a presented secret has the shape of a key; anything else is never looked up among the keys. */
export function looksLikeApiKey(presented: string): boolean {
  return KEY_PATTERN.test(presented);
}

/** What the record keeps of a key: its SHA-256 (a key has 256 random bits, so a plain hash cannot be reversed). */
export function apiKeyHash(key: string): Promise<string> {
  return sha256Hex(key);
}
