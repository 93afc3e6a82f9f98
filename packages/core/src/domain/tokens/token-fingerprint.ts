import { sha256Hex } from '../primitives/sha256-hex.js';

// Domain-separated, so a fingerprint can never be mistaken for (or replayed as) any other hash we keep.
const PREFIX = 'webui-retired-token\u0000';

/** What is kept of a token that was valid, so a stale cookie can be recognised without keeping the token itself. */
export function tokenFingerprint(token: string): Promise<string> {
  return sha256Hex(PREFIX + token);
}
