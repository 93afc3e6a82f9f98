import * as v from 'valibot';

/** docs/decisions/0001-error-bodies.md: every non-2xx answer. Some endpoints add their own fields beside these. */
export const ErrorBody = v.looseObject({
  detail: v.pipe(v.string(), v.description('A sentence for humans.')),
  code: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/), v.description('A stable snake_case code for scripts.')),
});

/** A 422 `invalid_body`: the error fields, and every problem of the body (at most 20; `detail` counts the rest). */
export const InvalidRequestBody = v.looseObject({
  ...ErrorBody.entries,
  code: v.literal('invalid_body'),
  problems: v.pipe(
    v.array(
      v.object({
        path: v.pipe(v.string(), v.description('Where, as a dot path (`token`, `items.0.name`); empty for the body itself.')),
        message: v.pipe(v.string(), v.description('What is wrong there.')),
      }),
    ),
    v.description('Every problem of the body, in order.'),
  ),
});

const retryAfter = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}; also in the Retry-After header.`));

/** docs/decisions/0001-error-bodies.md, docs/decisions/0002-failed-verification-and-bans.md: a 429 for too many failed attempts, from this address or (scope `server`) from many. */
export const TooManyAttemptsBody = v.looseObject({
  ...ErrorBody.entries,
  retry_after: retryAfter('Seconds until the ban ends'),
});

/** docs/decisions/0016-shared-store-fails-closed.md: the shared state store cannot be reached, so nothing was decided, counted or changed. */
export const StoreUnavailableBody = v.strictObject({
  detail: ErrorBody.entries.detail,
  code: v.literal('store_unavailable'),
  retry_after: retryAfter('Seconds to wait'),
});
