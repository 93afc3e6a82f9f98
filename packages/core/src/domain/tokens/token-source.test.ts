import { describe, expect, it } from 'vitest';
import { resolveTokenSource } from './token-source.js';

describe('resolveTokenSource (docs/decisions/0012-token-file.md)', () => {
  it('an explicit tokenSource wins, whatever the token looks like', () => {
    expect(resolveTokenSource({ accessToken: 'ab'.repeat(32), tokenSource: 'configured', firstSetupCompleted: false })).toBe('configured');
    expect(resolveTokenSource({ accessToken: 'Custom-Token!', tokenSource: 'temporary', firstSetupCompleted: false })).toBe('temporary');
  });

  it('without tokenSource a 64 lowercase hex token is temporary', () => {
    expect(resolveTokenSource({ accessToken: '0123456789abcdef'.repeat(4), firstSetupCompleted: true })).toBe('temporary');
  });

  it('without tokenSource anything else is configured', () => {
    for (const accessToken of [
      '',
      'Custom-Token!',
      'ab'.repeat(31),
      'ab'.repeat(33),
      'AB'.repeat(32),
      `${'ab'.repeat(31)}ag`,
      ` ${'ab'.repeat(32)}`,
    ]) {
      expect(resolveTokenSource({ accessToken, firstSetupCompleted: false }), accessToken).toBe('configured');
    }
  });
});
