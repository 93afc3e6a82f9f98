import type { WebuiError } from '@webui/client';

/** A field of a refused request's JSON body, e.g. `violations` of weak_token. */
export function bodyField(error: WebuiError, name: string): unknown {
  const body = error.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/** What a person reads for a refused request: the wait of a 429, else the body's `detail` or `message`, else `fallback`. */
export function failureMessage(error: WebuiError, fallback: string): string {
  if (error.status === 429) return retryMessage(error.retryAfter);
  for (const name of ['detail', 'message']) {
    const value = bodyField(error, name);
    if (typeof value === 'string') return value;
  }
  return fallback;
}

/** A ban's wait in minutes and seconds, and the clock time it ends. */
export function retryMessage(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return 'Too many failed attempts from this address; try again later.';
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  const wait = minutes > 0 ? `${minutes} min ${rest.toString().padStart(2, '0')} s` : `${rest} s`;
  const until = new Date(Date.now() + seconds * 1000).toLocaleTimeString();
  return `Too many failed attempts from this address. Try again in ${wait} (at ${until}).`;
}
