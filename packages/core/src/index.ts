/**
 * @webui/core: what a runtime or an HTTP adapter needs, at most 40 names. Store adapters take their port types
 * and plumbing from `@webui/core/adapter`, the in-memory store is `@webui/core/memory`, addresses and networks are
 * `@webui/core/net`, and test doubles with the shared conformance suites are `@webui/core/testing`.
 */

// Building the core and its verbs.
export { createCore, type Core } from './create-core.js';
export { createWebuiOperations } from './use-cases/webui-operations.js';
export { createAccessOperations, type AccessOperations, type SessionCheckOutcome } from './use-cases/access-operations.js';
export { createOperatorOperations } from './use-cases/operator-operations.js';
export type { OperatorOperations } from './use-cases/operator-operations.js';
export { EventRecorder } from './use-cases/events/event-recorder.js';
export { BanPolicy, type BanPolicyOptions } from './domain/bans/ban-policy.js';

// The ports a runtime fills, and the one error a store throws.
export type { Clock } from './ports/clock.js';
export type { RandomSource } from './ports/random-source.js';
export type { Logger } from './ports/logger.js';
export type { TokenSource } from './ports/token-record.js';
export { StoreUnavailableError, type Store } from './ports/store.js';

// Who asks and what they present, as a transport reads it.
export { permits, type Permission, type Principal } from './domain/credentials.js';
export type { Actor, AttemptClient } from './use-cases/actor.js';
export type { PresentedCredentials } from './use-cases/presented-credentials.js';
export type { AuthenticationOutcome } from './use-cases/authenticate.js';

// Security events and the audit trail.
export {
  auditLine,
  SECURITY_EVENT_NAMES,
  type AuditLine,
  type CredentialHow,
  type SecurityEvent,
  type SecurityEventSink,
} from './domain/security-event.js';
export { afterAuditWritten } from './use-cases/events/audit-written.js';
export { andThen, isPending, settled, type Awaitable } from './ports/awaitable.js';

// What the verbs answer with, and the sentences every transport uses.
export { DETAILS } from './use-cases/refusal-details.js';
export type { BanEntry } from './domain/bans/ban-policy.js';
export type { BudgetState } from './domain/bans/global-failure-budget.js';
export type { ApiKeyEntry } from './domain/api-keys.js';
export type { BootstrapOutcome } from './domain/tokens/token-service.js';
export { tokenWeakness } from './domain/tokens/token-status.js';
export type { TokenViolation } from './domain/tokens/token-strength.js';
export { revokedKeys } from './domain/api-keys.js';
export { TICKET_TTL_SECONDS } from './domain/ws-ticket-issuer.js';
export { parseDuration } from './domain/primitives/duration.js';
export { OncePerWindow } from './domain/primitives/once-per-window.js';
