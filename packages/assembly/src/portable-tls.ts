import type { TlsService } from './tls/index.js';

/** A certificate (the leaf, then its chain) and its key, as PEM text. */
export interface PemPair {
  cert: string;
  key: string;
}

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/**
 * What a fetch-style runtime (Bun, Deno) listens with under `[webui.tls]`: the pair now served, and the app's fetch adding
 * Strict-Transport-Security to every answer when `hsts = true`. Without TLS, the fetch unchanged and no pair.
 */
export function servedOverTls(fetch: Fetch, tls: TlsService | undefined): { fetch: Fetch; pair?: PemPair } {
  if (tls === undefined) return { fetch };
  const { cert, key } = tls.current();
  const hsts = tls.hsts;
  if (hsts === undefined) return { fetch, pair: { cert, key } };
  const withHsts: Fetch = async (request, env) => {
    const response = await fetch(request, env);
    // A 101 is the runtime's own upgrade answer: it must reach the runtime as it was made.
    if (response.status === 101) return response;
    try {
      response.headers.set('strict-transport-security', hsts);
      return response;
    } catch {
      // Headers of a fetched answer (one forwarded from the bot) are immutable: a copy carries the header.
      const copy = new Response(response.body, response);
      copy.headers.set('strict-transport-security', hsts);
      return copy;
    }
  };
  return { fetch: withHsts, pair: { cert, key } };
}
