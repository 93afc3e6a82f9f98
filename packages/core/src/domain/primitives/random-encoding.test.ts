import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import type { RandomSource } from '../../ports/random-source.js';
import { randomBase64Url, randomHex } from './random-encoding.js';
import { SeededRandom } from '../../testing/seeded-random.js';

function fixed(bytes: number[]): RandomSource {
  return { bytes: (length) => Uint8Array.from(bytes.slice(0, length)) };
}

describe('randomHex', () => {
  it('is lower-case hex, two characters per byte, zero-padded', () => {
    expect(randomHex(fixed([0x00, 0x0f, 0xa0, 0xff]), 4)).toBe('000fa0ff');
    expect(randomHex(new SeededRandom(1), 32)).toMatch(/^[0-9a-f]{64}$/);
    expect(randomHex(new SeededRandom(1), 0)).toBe('');
  });
});

describe('randomBase64Url', () => {
  it('matches unpadded base64url for every length from 0 to 40 bytes', () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = new SeededRandom(length + 1).bytes(length);
      expect(randomBase64Url(fixed(Array.from(bytes)), length), `${length} bytes`).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });

  it('uses - and _ and never padding', () => {
    expect(randomBase64Url(fixed([0xfb, 0xff, 0xbf]), 3)).toBe('-_-_');
    expect(randomBase64Url(fixed([0xff]), 1)).toBe('_w');
  });

  it('32 bytes give 43 URL-safe characters', () => {
    expect(randomBase64Url(new SeededRandom(9), 32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
