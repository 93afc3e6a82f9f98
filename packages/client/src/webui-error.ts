import type { WireBody } from '@webui/http-hono';

/** One problem of a refused body (422 `invalid_body`): where (a dot path such as `name`; '' for the body itself) and what. */
export type BodyProblem = WireBody<'InvalidRequestBody'>['problems'][number];

/** What a 403 `insufficient_scope` says would do: an API key of that scope (or the access token), or the access token. */
export type RequiredScope = 'read' | 'admin' | 'access_token';

/** Every non-2xx answer of the API, with the error body (docs/decisions/0001-error-bodies.md) `{detail, code}` (and `retry_after` on 429) read out. */
export class WebuiError extends Error {
  override readonly name = 'WebuiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** snake_case reason from the body, e.g. `invalid_session`, `too_many_attempts`, `weak_token`. */
  readonly code: string;
  /** Human sentence from the body. */
  readonly detail: string;
  /** Seconds to wait before trying again (429), from `retry_after` or the Retry-After header. */
  readonly retryAfter: number | undefined;
  /** The whole parsed body, for endpoint-specific fields such as `violations` of weak_token. */
  readonly body: unknown;
  /** 422 `invalid_body`: every problem of the body sent, from `problems`; otherwise undefined. */
  readonly problems: BodyProblem[] | undefined;
  /** 403 `insufficient_scope`: what the call needs, from `required`; otherwise undefined. */
  readonly required: RequiredScope | undefined;

  constructor(init: { status: number; code: string; detail: string; retryAfter?: number | undefined; body?: unknown }) {
    super(`${init.status} ${init.code}: ${init.detail}`);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
    const fields = typeof init.body === 'object' && init.body !== null ? (init.body as Record<string, unknown>) : {};
    this.problems = Array.isArray(fields['problems']) ? (fields['problems'] as BodyProblem[]) : undefined;
    this.required = typeof fields['required'] === 'string' ? (fields['required'] as RequiredScope) : undefined;
  }

  /** Reads the error out of a response; consumes its body. */
  static async fromResponse(response: Response): Promise<WebuiError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (a proxy's error page, say): keep the text as the body.
    }
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const bodyRetry = typeof fields['retry_after'] === 'number' ? fields['retry_after'] : undefined;
    return new WebuiError({
      status: response.status,
      code: typeof fields['code'] === 'string' ? fields['code'] : 'http_error',
      detail: typeof fields['detail'] === 'string' ? fields['detail'] : response.statusText || `HTTP ${response.status}`,
      retryAfter: bodyRetry ?? parseRetryAfter(response.headers.get('retry-after')),
      body,
    });
  }
}

/** Retry-After as seconds: either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
