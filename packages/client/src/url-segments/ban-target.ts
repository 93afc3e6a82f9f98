/**
 * The DELETE /security/bans/{key} path segment for a lift target: percent-encoded, since a key may hold
 * `:` and `/` (`2001:db8::/64`) and hono's client puts parameters into the path as they are.
 */
export function banTargetSegment(target: string): string {
  // No path segment can carry these: '' addresses the list itself, and URL parsing resolves `.` and `..` (even as %2E) away.
  if (target === '' || target === '.' || target === '..') {
    throw new TypeError(
      `liftBan(${JSON.stringify(target)}): the target must be \`all\`, an address, a CIDR or a key as listBans() lists it.`,
    );
  }
  return encodeURIComponent(target);
}
