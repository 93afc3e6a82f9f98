import { unixSocketPath } from '@webui/core/net';
import { namesLoopback } from '@webui/http-hono';

/** A `webui.host` entry `unix:/absolute/path` listens on a Unix socket instead of a TCP address. */
export { unixSocketPath };

/** Loopback or a Unix socket: only this machine reaches it, so a rebound Host name is the way in (docs/decisions/0009-csrf-and-dns-rebinding.md). */
export const isLocalHost = (host: string): boolean => unixSocketPath(host) !== null || namesLoopback(host);
