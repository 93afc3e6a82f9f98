import { namesLoopback } from '@webui/http-hono';

/** A `webui.host` entry `unix:/absolute/path` listens on a Unix socket instead of a TCP address. */
export const UNIX_HOST_PREFIX = 'unix:';

/** The socket path of a `unix:` host entry, or null for a TCP host. */
export function unixSocketPath(host: string): string | null {
  return host.startsWith(UNIX_HOST_PREFIX) ? host.slice(UNIX_HOST_PREFIX.length) : null;
}

/** Loopback or a Unix socket: only this machine reaches it, so a rebound Host name is the way in (docs/decisions/0009-csrf-and-dns-rebinding.md). */
export const isLocalHost = (host: string): boolean => unixSocketPath(host) !== null || namesLoopback(host);
