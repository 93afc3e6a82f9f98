/** A prefix without its trailing slash (`/api/chat/` is `/api/chat`); `/` stays `/`. */
export function prefixBase(prefix: string): string {
  const base = prefix.replace(/\/+$/, '');
  return base === '' ? '/' : base;
}

/** Whether `path` is `prefix` or lies under it, by whole segments (`/api/chat` holds `/api/chat/x`, not `/api/chatx`); `/` holds all. */
export function isUnderPrefix(path: string, prefix: string): boolean {
  const base = prefixBase(prefix);
  if (base === '/') return true;
  return path.startsWith(base) && (path.length === base.length || path[base.length] === '/');
}

/** The prefixes that no other one holds, without trailing slashes: each path lies under at most one of them. */
export function outermostPrefixes(prefixes: readonly string[]): string[] {
  const unique = [...new Set(prefixes.map(prefixBase))];
  return unique.filter((prefix) => !unique.some((other) => other !== prefix && isUnderPrefix(prefix, other)));
}
