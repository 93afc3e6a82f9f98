/**
 * Compares a presented secret with the real one in time that depends only on the presented
 * length: no early exit on a length mismatch or on the first differing character.
 */
export function constantTimeEqual(presented: string, secret: string): boolean {
  let difference = presented.length ^ secret.length;
  // An empty secret is never a valid credential; compare against a dummy to keep the work the same.
  const reference = secret.length > 0 ? secret : '\u0000';
  if (secret.length === 0) difference |= 1;
  for (let i = 0; i < presented.length; i++) {
    difference |= presented.charCodeAt(i) ^ reference.charCodeAt(i % reference.length);
  }
  return difference === 0;
}
