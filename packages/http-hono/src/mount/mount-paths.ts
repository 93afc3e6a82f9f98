// A plain segment: URL-unreserved characters only, so it means the same to Hono's router, a proxy and the OpenAPI document.
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]+$/;
// A route's path parameter, as Hono writes it (no pattern, no optional mark).
const PARAMETER_SEGMENT = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `path` cannot be a route group's path under `prefix` (a clean path of plain segments below it), or null when it can. */
export function groupPathProblem(path: string, prefix: string): string | null {
  if (!path.startsWith(`${prefix}/`)) return `a route group's path must be under ${prefix}/ (e.g. ${prefix}/config)`;
  const bad = segmentProblem(path.slice(prefix.length), false);
  return bad === null ? null : `a route group's path ${bad}`;
}

/** Why `path` cannot be a route's path inside its group ('/' is the group's own path; `:name` segments are parameters), or null. */
export function routePathProblem(path: string): string | null {
  if (path === '/') return null;
  const bad = path.startsWith('/') ? segmentProblem(path, true) : 'must start with /';
  return bad === null ? null : `a route's path ${bad}`;
}

function segmentProblem(path: string, parameters: boolean): string | null {
  for (const segment of path.slice(1).split('/')) {
    if (segment === '') return 'must not hold an empty segment (// or a trailing /)';
    if (segment === '.' || segment === '..') return 'must not hold . or .. segments';
    if (parameters && PARAMETER_SEGMENT.test(segment)) continue;
    if (!PLAIN_SEGMENT.test(segment)) {
      const allowed = parameters ? 'letters, digits, . _ ~ - and :name parameters' : 'letters, digits and . _ ~ -';
      return `may hold only ${allowed}, not ${JSON.stringify(segment)}`;
    }
  }
  return null;
}

/**
 * Whether the paths `a` and `b` are equal or one lies inside the other, segment by segment; in either a `:name` segment
 * stands for any segment and a final `*` for anything below (how Hono reads this server's own route paths).
 */
export function pathsOverlap(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [x, y] = [left[i] as string, right[i] as string];
    if (x === '*' || y === '*') return true;
    if (x !== y && !x.startsWith(':') && !y.startsWith(':')) return false;
  }
  return true;
}

/** A Hono route path in OpenAPI's form: `:name` becomes `{name}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
