import { describe, expect, it } from 'vitest';
import {
  TOKEN_MAX_LENGTH,
  TOKEN_MIN_LENGTH,
  TOKEN_SPECIAL_CHARACTERS,
  TOKEN_VIOLATION_MESSAGES,
  tokenViolations,
} from './token-strength.js';

describe('tokenViolations (docs/decisions/0005-weak-tokens.md)', () => {
  it('accepts a token that meets every rule', () => {
    expect(tokenViolations('Good-Token-123')).toEqual([]);
  });

  it('uses the limits of the specification and docs/decisions/0005-weak-tokens.md', () => {
    expect(TOKEN_MIN_LENGTH).toBe(10);
    expect(TOKEN_MAX_LENGTH).toBe(512);
    expect(TOKEN_SPECIAL_CHARACTERS).toBe('!@#$%^&*()_+-=[]{}|;:,.<>?/');
  });

  it('names every broken rule, in a stable order', () => {
    expect(tokenViolations('')).toEqual(['too_short', 'missing_uppercase', 'missing_lowercase', 'missing_special']);
    expect(tokenViolations(' ')).toEqual(['too_short', 'missing_uppercase', 'missing_lowercase', 'missing_special', 'invalid_characters']);
    expect(tokenViolations(`${'\u00e9'.repeat(TOKEN_MAX_LENGTH + 1)}`)).toEqual([
      'too_long',
      'missing_uppercase',
      'missing_lowercase',
      'missing_special',
      'invalid_characters',
    ]);
  });

  it('length boundaries: 9 too short, 10 and 512 fine, 513 too long', () => {
    expect(tokenViolations('Aa!4567890'.slice(0, 9))).toEqual(['too_short']);
    expect(tokenViolations('Aa!4567890')).toEqual([]);
    expect(tokenViolations(`Aa!${'z'.repeat(509)}`)).toEqual([]);
    expect(tokenViolations(`Aa!${'z'.repeat(510)}`)).toEqual(['too_long']);
  });

  it('characters outside printable ASCII without space are invalid', () => {
    for (const bad of [' ', '\t', '\n', '\u0000', '\u007f', '\u00a0', '\u00e9', '\u4e2d', '\u{1f600}']) {
      expect(tokenViolations(`Valid-Token${bad}1`), JSON.stringify(bad)).toEqual(['invalid_characters']);
    }
  });

  it('every special character counts, other punctuation does not', () => {
    for (const special of TOKEN_SPECIAL_CHARACTERS) expect(tokenViolations(`Abcdefghi${special}`), special).toEqual([]);
    for (const other of ['~', '`', '"', "'", '\\']) expect(tokenViolations(`Abcdefghi${other}`), other).toEqual(['missing_special']);
  });

  it('has a message for every violation', () => {
    expect(Object.keys(TOKEN_VIOLATION_MESSAGES).sort()).toEqual([
      'invalid_characters',
      'missing_lowercase',
      'missing_special',
      'missing_uppercase',
      'same_as_current',
      'too_long',
      'too_short',
    ]);
    expect(TOKEN_VIOLATION_MESSAGES.too_short).toContain('10');
    expect(TOKEN_VIOLATION_MESSAGES.too_long).toContain('512');
  });
});
