/** The special characters the specification accepts in a custom token. */
export const TOKEN_SPECIAL_CHARACTERS = '!@#$%^&*()_+-=[]{}|;:,.<>?/';

export const TOKEN_MIN_LENGTH = 10;
export const TOKEN_MAX_LENGTH = 512;

export type TokenViolation =
  'too_short' | 'too_long' | 'missing_uppercase' | 'missing_lowercase' | 'missing_special' | 'invalid_characters' | 'same_as_current';

export const TOKEN_VIOLATION_MESSAGES: Record<TokenViolation, string> = {
  too_short: `at least ${TOKEN_MIN_LENGTH} characters`,
  too_long: `at most ${TOKEN_MAX_LENGTH} characters`,
  missing_uppercase: 'an uppercase letter (A-Z)',
  missing_lowercase: 'a lowercase letter (a-z)',
  missing_special: `a special character from ${TOKEN_SPECIAL_CHARACTERS}`,
  invalid_characters: 'printable ASCII only, without spaces',
  same_as_current: 'a value different from the current token',
};

/** Every strength rule a proposed custom token breaks (docs/decisions/0005-weak-tokens.md); empty when it is acceptable. */
export function tokenViolations(candidate: string): TokenViolation[] {
  const violations: TokenViolation[] = [];
  if (candidate.length < TOKEN_MIN_LENGTH) violations.push('too_short');
  if (candidate.length > TOKEN_MAX_LENGTH) violations.push('too_long');
  if (!/[A-Z]/.test(candidate)) violations.push('missing_uppercase');
  if (!/[a-z]/.test(candidate)) violations.push('missing_lowercase');
  if (![...candidate].some((ch) => TOKEN_SPECIAL_CHARACTERS.includes(ch))) violations.push('missing_special');
  // Printable ASCII without space: the token travels in a cookie and in shell scripts.
  if (!/^[\x21-\x7e]*$/.test(candidate)) violations.push('invalid_characters');
  return violations;
}
