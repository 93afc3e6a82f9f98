import * as v from 'valibot';
import { TokenSource } from '../auth/auth-schemas.js';

export const SetupStatusResponse = v.strictObject({
  is_first_setup: v.boolean(),
  token_source: TokenSource,
  requires_custom_token: v.boolean(),
  message: v.string(),
});

/** POST /setup/complete and /setup/reset: the flag as it now is (docs/decisions/0015-setup-and-logout-answers.md). */
export const SetupChangeResponse = v.strictObject({ success: v.literal(true), message: v.string(), is_first_setup: v.boolean() });
