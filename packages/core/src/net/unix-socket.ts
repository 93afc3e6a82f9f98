/** A host or URL written `unix:/absolute/path` names a Unix socket instead of a TCP address (`webui.host`, `webui.upstream.url`). */
export const UNIX_SOCKET_PREFIX = 'unix:';

/** The socket path of a `unix:` entry, or null for a TCP one. */
export function unixSocketPath(text: string): string | null {
  return text.startsWith(UNIX_SOCKET_PREFIX) ? text.slice(UNIX_SOCKET_PREFIX.length) : null;
}

// Absolute only: a relative path would depend on the directory the server happens to start in.
export const isAbsoluteSocketPath = (path: string | null): boolean =>
  path !== null && path.length > 1 && path.startsWith('/') && !path.includes('\0');
