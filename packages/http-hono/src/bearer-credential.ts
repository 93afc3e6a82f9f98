/**
 * The secret of an `Authorization: Bearer <secret>` header (the scheme in any case, RFC 9110), '' for a
 * Bearer header without one, or null when the header is absent or names another scheme.
 */
export function bearerCredential(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^\s*bearer(?:\s+(.*?))?\s*$/is.exec(header);
  if (!match) return null;
  return match[1] ?? '';
}
