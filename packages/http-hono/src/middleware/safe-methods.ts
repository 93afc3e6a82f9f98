const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** GET, HEAD and OPTIONS: they read, carry no body to limit, need only the read scope, and CSRF leaves them alone. */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}
