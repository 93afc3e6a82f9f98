const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** GET, HEAD and OPTIONS: they read, carry no body to limit, need only the read scope, and CSRF leaves them alone. */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/** Through the gateway only GET and HEAD read: the upstream may give OPTIONS (or any other method) a meaning of its own. */
export function isForwardedRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/**
 * Whether a request only reads: a safe method, except that on a path `isForwarded` names (asked about an OPTIONS alone, so
 * no other request pays for it) only GET and HEAD do (isForwardedRead).
 */
export function readsOnly(method: string, path: string, isForwarded?: (path: string) => boolean): boolean {
  return method === 'OPTIONS' ? isForwarded?.(path) !== true : isSafeMethod(method);
}
