import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['90d', 90 * 86_400_000],
    ['2w', 14 * 86_400_000],
    [' 7d ', 7 * 86_400_000],
  ])('reads %j', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'd', '0d', '1.5h', '-1h', '10', '1y', '1 h', '01h', '1H'])('refuses %j', (text) => expect(parseDuration(text)).toBeNull());

  it('refuses more than ten years', () => {
    expect(parseDuration('3650d')).toBe(MAX_DURATION_MS);
    expect(parseDuration('3651d')).toBeNull();
  });
});
