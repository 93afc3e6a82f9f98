import { createWebuiClient, type WebuiClient } from '@webui/client';

/** fetch failed before any answer came: the server is down or out of reach. */
export class NetworkError extends Error {}

/**
 * The page's @webui/client: same origin, the browser keeps the HttpOnly cookie, nothing cached.
 * It is never given a token, so a 401 is thrown rather than answered by a re-login: the page asks the
 * person instead, and a refused re-login would count toward the ban (docs/decisions/0002-failed-verification-and-bans.md, docs/decisions/0004-guessing-through-the-cookie.md).
 */
export function createPageClient(): WebuiClient {
  return createWebuiClient({
    baseUrl: window.location.origin,
    // A person is waiting: a 429 is shown with its wait at once, never slept through.
    maxRetries: 0,
    async fetch(input, init) {
      try {
        return await fetch(input, { ...init, credentials: 'same-origin', cache: 'no-store' });
      } catch {
        throw new NetworkError('The server cannot be reached; is it running?');
      }
    },
  });
}
