/** The normalised origin of an http(s) URL written as scheme://host[:port]; null if it has a path, query or credentials. */
export function parseOrigin(text: string): string | null {
  // The URL parser would otherwise accept "http:localhost" and friends.
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return null;
  if (text.includes('?') || text.includes('#')) return null;
  return url.origin;
}
