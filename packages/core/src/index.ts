export type { Clock } from './ports/clock.js';
export type { RandomSource } from './ports/random-source.js';
export { StoreUnavailableError, type ShortLivedState, type Store } from './ports/store.js';
export type { ApiKeyRecord, ApiKeyScope, TokenRecord, TokenSource } from './ports/token-record.js';
export type { RecordChangeListener, RecordChangeOrigin, RecordStore, RecordSwap } from './ports/record-store.js';
export type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from './ports/attempt-store.js';
export type { BudgetBucket, FailureBudgetStore } from './ports/failure-budget-store.js';
export type { RetiredTokenStore } from './ports/retired-token-store.js';
export type { TicketGrant, TicketStore } from './ports/ticket-store.js';
export { createCore, type Core, type CorePorts } from './create-core.js';
export {
  BanPolicy,
  DEFAULT_BAN_POLICY,
  type Admission,
  type BanEntry,
  type BanPolicyOptions,
  type BanStatus,
  type FailureOutcome,
  type KnownKeys,
  type LiftRefusal,
  type UncountedReason,
  type VerifiedCredential,
} from './domain/bans/ban-policy.js';
export type { BudgetState } from './domain/bans/global-failure-budget.js';
export { parseBanTarget, banTargetMatches, type BanTarget } from './domain/bans/ban-target.js';
export {
  TokenService,
  type BootstrapOptions,
  type BootstrapOutcome,
  type BootstrapReason,
  type RotationOutcome,
  type TokenStatus,
} from './domain/tokens/token-service.js';
export { SetupState } from './domain/setup-state.js';
export { WsTicketIssuer, TICKET_TTL_SECONDS, type TicketRefusal } from './domain/ws-ticket-issuer.js';
export { MemoryStore } from './memory/memory-store.js';
export { MemoryShortLivedState, DEFAULT_MEMORY_STORE_LIMITS, type MemoryStoreLimits } from './memory/memory-short-lived-state.js';
export { constantTimeEqual } from './domain/primitives/constant-time-equal.js';
export {
  tokenViolations,
  TOKEN_VIOLATION_MESSAGES,
  TOKEN_SPECIAL_CHARACTERS,
  TOKEN_MIN_LENGTH,
  TOKEN_MAX_LENGTH,
  type TokenViolation,
} from './domain/tokens/token-strength.js';
export { resolveTokenSource, isGeneratedToken } from './domain/tokens/token-source.js';
export { tokenStatus, tokenWeakness, describeTokenWeakness } from './domain/tokens/token-status.js';
export { parseIp, formatIp, clientKey, isLoopbackIp, type IpAddress } from './domain/primitives/ip-address.js';
export { parseCidr, cidrContains, anyCidrContains, type Cidr } from './domain/primitives/cidr.js';
export { ok, err, type Result } from './domain/result.js';
export {
  auditLine,
  SECURITY_EVENT_NAMES,
  type AuditLine,
  type CredentialHow,
  type SecurityEvent,
  type SecurityEventName,
  type SecurityEventSink,
  type SecurityEventVia,
} from './domain/security-event.js';
export { parseDuration, MAX_DURATION_MS } from './domain/primitives/duration.js';
export {
  ApiKeys,
  revokedKeyNames,
  revokedKeySessions,
  MAX_API_KEYS,
  LAST_USED_RESOLUTION_MS,
  type ApiKeyEntry,
  type CreateKeyRefusal,
  type KeyCheck,
} from './domain/api-keys.js';
export { API_KEY_PREFIX, looksLikeApiKey } from './domain/api-key-format.js';
export { Credentials, permits, type Authentication, type Permission, type Principal, type Unauthenticated } from './domain/credentials.js';
export type { Logger } from './ports/logger.js';
export type { Actor, AttemptClient } from './use-cases/actor.js';
export type { AttemptRefusal, Pause, PresentedValue } from './use-cases/attempts.js';
export type { AuthenticationOutcome, CredentialVia } from './use-cases/authenticate.js';
export type { PresentedCredentials, AmbiguousCredentials } from './use-cases/presented-credentials.js';
export {
  createAccessOperations,
  type AccessOperations,
  type LoginOutcome,
  type SessionCheckOutcome,
  type TicketIssueOutcome,
  type TicketRedeemOutcome,
} from './use-cases/access-operations.js';
export {
  createOperatorOperations,
  type OperatorOperations,
  type KeyRefusal,
  type LiftBanRefusal,
} from './use-cases/operator-operations.js';
export { createWebuiOperations, type WebuiOperations } from './use-cases/webui-operations.js';
export { EventRecorder, type OperationEventSink } from './use-cases/events/event-recorder.js';
export { LoginLog, LOGIN_LOG_WINDOW_MS } from './use-cases/events/login-log.js';
export { auditEventOf, type Done, type OperationEvent, type OperationNotice } from './use-cases/events/operation-event.js';
export {
  AMBIGUOUS_CREDENTIALS_DETAIL,
  KEY_REFUSAL_DETAIL,
  OWN_BAN_DETAIL,
  unknownKeyDetail,
  weakTokenDetail,
} from './use-cases/refusal-details.js';
export { afterAuditWritten } from './use-cases/events/audit-written.js';
