import type { RandomSource } from '../../ports/random-source.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Lower-case hex of `byteCount` random bytes: 32 bytes give the 64-character tokens of the specification. */
export function randomHex(random: RandomSource, byteCount: number): string {
  let hex = '';
  for (const byte of random.bytes(byteCount)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Unpadded base64url of `byteCount` random bytes: 32 bytes give a 43-character URL-safe ticket. */
export function randomBase64Url(random: RandomSource, byteCount: number): string {
  const bytes = random.bytes(byteCount);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] as number;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    out += BASE64URL[b0 >> 2];
    out += BASE64URL[((b0 & 0x03) << 4) | ((b1 ?? 0) >> 4)];
    if (b1 !== undefined) out += BASE64URL[((b1 & 0x0f) << 2) | ((b2 ?? 0) >> 6)];
    if (b2 !== undefined) out += BASE64URL[b2 & 0x3f];
  }
  return out;
}
