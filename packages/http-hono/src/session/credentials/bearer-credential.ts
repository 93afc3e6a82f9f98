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

/**
 * Whether an Authorization value holds more than one credential, a Bearer among them: repeated fields
 * arrive joined with ", " (a web Headers, Node's raw lines), and no token or key holds a comma and a blank.
 */
export function holdsSeveralCredentials(header: string | undefined): boolean {
  return header !== undefined && /,\s/.test(header) && /(?:^|,)\s*bearer(?:\s|$)/i.test(header);
}
