import { AUTH_OPERATIONS } from '../features/auth/auth-operations.js';
import { BANS_OPERATIONS } from '../features/bans/bans-operations.js';
import { CHANNEL_OPERATIONS } from '../features/channel/channel-operations.js';
import { HEALTH_OPERATIONS } from '../features/health/health-operations.js';
import { KEYS_OPERATIONS } from '../features/keys/keys-operations.js';
import { SETUP_OPERATIONS } from '../features/setup/setup-operations.js';
import { WS_TOKEN_OPERATIONS } from '../features/ws-token/ws-token-operations.js';
import type { Operation } from './documented-operation.js';

/** The types the package's entry names beside OPERATIONS. */
export type { DocumentedOperation, Operation } from './documented-operation.js';

/**
 * The built-in features' operations, in the order the document lists them (features/builtin-features.ts registers each
 * feature's own list); each is declared in its feature's folder. /metrics is documented only when served.
 */
export const OPERATIONS: Operation[] = [
  ...HEALTH_OPERATIONS,
  ...AUTH_OPERATIONS,
  ...SETUP_OPERATIONS,
  ...WS_TOKEN_OPERATIONS,
  ...BANS_OPERATIONS,
  ...KEYS_OPERATIONS,
  ...CHANNEL_OPERATIONS,
];
