import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every non-2xx answer has this body (DESIGN D1), sometimes with endpoint-specific fields beside it. */
export function errorBody(c: Context, status: ContentfulStatusCode, code: string, detail: string, extra: Record<string, unknown> = {}): Response {
  return c.json({ ...extra, detail, code }, status);
}

/** 429 with Retry-After in the header and the body (DESIGN D1, D2). */
export function tooManyAttempts(c: Context, retryAfterSeconds: number, extra: Record<string, unknown> = {}): Response {
  c.header('Retry-After', String(retryAfterSeconds));
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return errorBody(c, 429, 'too_many_attempts', `Too many failed attempts from this address; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    ...extra,
    retry_after: retryAfterSeconds,
  });
}
