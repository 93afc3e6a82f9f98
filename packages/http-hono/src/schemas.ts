import * as v from 'valibot';

/** Request bodies of the specification; the messages reach callers in the D1 `detail`. */
export const VerifyRequest = v.object({
  token: v.string('token must be a string'),
});

export const UpdateTokenRequest = v.object({
  new_token: v.string('new_token must be a string'),
});
