import type { Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { requestHeader } from '../runtime-port.js';

/**
 * docs/decisions/0009-csrf-and-dns-rebinding.md: the origin the request itself addressed (its Host, with the scheme it came over),
 * the server's own listen origins, and webui.allowed_origins.
 */
export function isAllowedOrigin(origin: string, c: Context<WebuiEnv>, policy: HttpPolicy): boolean {
  const normalised = origin.toLowerCase();
  const host = requestHeader(c, 'host');
  if (host && normalised === `${c.get('secureTransport') ? 'https' : 'http'}://${host.toLowerCase()}`) return true;
  if (policy.listenOrigins().some((allowed) => allowed.toLowerCase() === normalised)) return true;
  return policy.allowedOrigins.some((allowed) => allowed.toLowerCase() === normalised);
}
