// Domain-separated, so a fingerprint can never be mistaken for (or replayed as) any other hash we keep.
const PREFIX = 'webui-retired-token\u0000';

/**
 * SHA-256 hex of a token, through the Web Crypto API every runtime has: what is kept of a token
 * that was valid, so a stale cookie can be recognised without keeping the token itself.
 */
export async function tokenFingerprint(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(PREFIX + token)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
