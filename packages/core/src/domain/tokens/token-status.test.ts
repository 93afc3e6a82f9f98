import { describe, expect, it } from 'vitest';
import { describeTokenWeakness, tokenStatus, tokenWeakness } from './token-status.js';

const GENERATED = '0123456789abcdef'.repeat(4);

describe('tokenWeakness: the strength rules apply however the token got there', () => {
  it('a hand-written weak token breaks rules, named', () => {
    expect(tokenWeakness('a')).toEqual(['too_short', 'missing_uppercase', 'missing_special']);
    expect(tokenWeakness('Summer2026')).toEqual(['missing_special']);
  });

  it('a strong token and the generated shape (64 lowercase hex, 256 random bits) are not weak', () => {
    expect(tokenWeakness('Summer-2026!Token')).toEqual([]);
    expect(tokenWeakness(GENERATED)).toEqual([]);
  });

  it('hex that is not the generated shape is judged by the rules', () => {
    expect(tokenWeakness(GENERATED.toUpperCase())).toEqual(['missing_lowercase', 'missing_special']);
    expect(tokenWeakness(GENERATED.slice(1))).toEqual(['missing_uppercase', 'missing_special']);
  });
});

describe('tokenStatus: what every route reports', () => {
  it('temporary: a custom token is required', () => {
    expect(tokenStatus({ accessToken: GENERATED, tokenSource: 'temporary', firstSetupCompleted: false })).toEqual({
      tokenSource: 'temporary',
      requiresCustomToken: true,
    });
  });

  it('configured and strong, or regenerated (64 hex): none is required', () => {
    expect(tokenStatus({ accessToken: 'Summer-2026!Token', tokenSource: 'configured', firstSetupCompleted: true })).toEqual({
      tokenSource: 'configured',
      requiresCustomToken: false,
    });
    expect(tokenStatus({ accessToken: GENERATED, tokenSource: 'configured', firstSetupCompleted: true })).toEqual({
      tokenSource: 'configured',
      requiresCustomToken: false,
    });
  });

  it('configured but weak (a hand edit): a custom token is required', () => {
    expect(tokenStatus({ accessToken: 'a', tokenSource: 'configured', firstSetupCompleted: true })).toEqual({
      tokenSource: 'configured',
      requiresCustomToken: true,
    });
    expect(tokenStatus({ accessToken: 'a', firstSetupCompleted: true })).toEqual({ tokenSource: 'configured', requiresCustomToken: true });
  });
});

describe('describeTokenWeakness', () => {
  it('names every broken rule and never the token', () => {
    const line = describeTokenWeakness(tokenWeakness('weakling'));
    expect(line).toBe(
      'the access token is weak: it needs at least 10 characters; an uppercase letter (A-Z); a special character from ' +
        '!@#$%^&*()_+-=[]{}|;:,.<>?/',
    );
    expect(line).not.toContain('weakling');
  });
});
