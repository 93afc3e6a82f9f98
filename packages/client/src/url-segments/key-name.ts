/**
 * The DELETE /keys/{name} path segment for a key name: percent-encoded, since hono's client puts
 * parameters into the path as they are and a name read from elsewhere may hold anything.
 */
export function keyNameSegment(name: string): string {
  // No path segment can carry these, and no key is named so (a name starts with a letter or digit).
  if (name === '' || name === '.' || name === '..') {
    throw new TypeError(`revokeKey(${JSON.stringify(name)}): a key name starts with a letter or digit, as listKeys() lists it.`);
  }
  return encodeURIComponent(name);
}
