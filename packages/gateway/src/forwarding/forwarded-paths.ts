import { TrieRouter } from 'hono/router/trie-router';
import { isForwardedRead, rememberVerdicts } from '@webui/http-hono';
import { isUnderPrefix, outermostPrefixes } from './path-prefix.js';
import type { UpstreamOptions } from '../upstream-options.js';

// Characters Hono reads as pattern syntax in a `use(path)`: a prefix holding one could not be guarded by its own pattern.
const PATTERN_SYNTAX = /[:*{}?]/;
/**
 * What an upstream could resolve into another path than the one judged here, in Hono's decoded path (`c.req.path`): an
 * encoded slash (its decoding keeps %2F), a backslash or NUL (decoded from %5C and %00), or a `.` or `..` segment the
 * runtime left unresolved (Deno keeps `%2e%2e`).
 */
const RESOLVES_ELSEWHERE = /%2f|[\\\0]|(?:^|\/)\.{1,2}(?:\/|$)/i;

/** Whether a forwarded path could reach the upstream as another path: such a request is refused (issue 42). */
export function mayResolveElsewhere(path: string): boolean {
  return RESOLVES_ELSEWHERE.test(path);
}

/**
 * This server's own endpoints, as its routes declare them: never forwarded, whatever the method. Each request asks once or
 * twice (which paths go to the upstream, then the method's permission), so the router's answers for recent paths are kept.
 */
export function ownEndpoints(paths: Iterable<string>): (path: string) => boolean {
  const router = new TrieRouter<true>();
  for (const path of paths) router.add('ALL', path, true);
  // A trailing slash does not make a path someone else's (`/api/webui/ws/` stays ours).
  return rememberVerdicts((path) => router.match('GET', path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)[0].length > 0);
}

/**
 * Which request paths go to the upstream (docs/decisions/0028-gateway-forwarding-rules.md, Paths): under one of `paths`, by whole segments, and not an endpoint
 * of this server; which of them a caller reaches without a credential (`publicPaths`, GET and HEAD only).
 */
export class ForwardedPaths {
  private readonly publicExact: ReadonlySet<string>;
  private readonly publicPrefixes: readonly string[];

  constructor(
    private readonly upstream: Pick<UpstreamOptions, 'paths' | 'publicPaths'>,
    private readonly isOwn: (path: string) => boolean,
  ) {
    const bad = upstream.paths.find((path) => !path.startsWith('/') || PATTERN_SYNTAX.test(path));
    if (bad !== undefined) throw new Error(`webui.upstream.paths: ${JSON.stringify(bad)} is not a plain path prefix starting with /`);
    this.publicExact = new Set(upstream.publicPaths.filter((entry) => !entry.endsWith('*')));
    this.publicPrefixes = upstream.publicPaths.filter((entry) => entry.endsWith('*')).map((entry) => entry.slice(0, -1));
  }

  /** Whether a request for `path` is forwarded (after the pipeline let it through). */
  isForwarded(path: string): boolean {
    return this.upstream.paths.some((prefix) => isUnderPrefix(path, prefix)) && !this.isOwn(path);
  }

  /**
   * Whether the session guard lets `method path` through without a credential: a forwarded public path, read with GET or
   * HEAD, that no upstream could read as another path: none that may resolve elsewhere, and none holding `;` (a server
   * that strips path parameters before resolving dot segments reads `/assets/..;/secret` as `/secret`).
   */
  isPublic(path: string, method: string): boolean {
    if (!isForwardedRead(method)) return false;
    const listed = this.publicExact.has(path) || this.publicPrefixes.some((prefix) => path.startsWith(prefix));
    return listed && !path.includes(';') && !mayResolveElsewhere(path) && this.isForwarded(path);
  }

  /** The Hono patterns the API's pipeline steps run on: the API prefix and every forwarded prefix, none inside another. */
  guardedPatterns(apiPrefix: string): string[] {
    return outermostPrefixes([apiPrefix, ...this.upstream.paths]).map((prefix) => (prefix === '/' ? '/*' : `${prefix}/*`));
  }
}
