import type { createWebuiOperations } from '@webui/core';
import type { WebuiAppOptions } from '../app.js';
import type { RefusalAudit } from '../answers/refusal-audit.js';
import type { SessionCookie } from '../session/credentials/session-cookie.js';
import type { AssertionSigner } from './auth/caller-identity.js';

/** What app.ts hands every built-in feature: the options it was built with and the parts it made of them. */
export interface FeatureContext {
  readonly options: WebuiAppOptions;
  /** The core's verbs, their events written by the app's one recorder. */
  readonly operations: ReturnType<typeof createWebuiOperations>;
  readonly cookie: SessionCookie;
  readonly refusals: RefusalAudit;
  /** The OpenAPI document, written once every feature is mounted (before the first request). */
  readonly openApi: () => object;
  /** The forwarding feature's assertion signer, which forward-auth answers with too. */
  readonly assertion: AssertionSigner | undefined;
}
