/** Meets every rule of /auth/update: 10+ characters, upper and lower case, a special character. */
export const STRONG_TOKEN = 'Setup-Token_2024!Operator#e2e';
export const OTHER_STRONG_TOKEN = 'Rotated;Token,With=Odd/Chars9';
export const HEX64 = /^[0-9a-f]{64}$/;
