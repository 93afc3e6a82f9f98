export { afterAuditWritten } from './answers/audit-written.js';
export { createWebuiApp, API_PREFIX, MAX_BODY_BYTES, WS_PATH, type WebuiAppOptions, type WebuiApp } from './app.js';
export type { AppLogger, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
export type { RuntimePort } from './runtime-port.js';
export {
  extensionFeature,
  type Feature,
  type FeatureSchema,
  type ForwardedPaths,
  type Forwarding,
  type ForwardingContext,
} from './feature.js';
export { channelDomains, channelRelay } from './feature-set.js';
export { resolveClient, UNIX_SOCKET_PEER, type ResolvedClient } from './edge/client-ip.js';
export { isCanonicalHost, isDnsName, isWellFormedHost, namesLoopback, splitHost, type HostParts } from './host/host-header.js';
export { rememberVerdicts } from './host/remembered-verdicts.js';
export { SESSION_COOKIE } from './session/credentials/session-cookie.js';
export { LOGOUT_MESSAGE } from './features/auth/auth-routes.js';
export type { WsUpgrade } from './features/channel/ws-routes.js';
export {
  WsHub,
  MAX_MESSAGE_BYTES,
  CLOSE_TOKEN_CHANGED,
  CLOSE_GOING_AWAY,
  CLOSE_MESSAGE_TOO_BIG,
  CLOSE_TRY_AGAIN_LATER,
  type WsHubOptions,
} from './features/channel/hub/ws-hub.js';
export {
  HUB_DOMAINS,
  type ChannelRelay,
  type RelayEnds,
  type RelayLink,
  type RelayedMessage,
  type RequestId,
} from './features/channel/hub/channel-relay.js';
export { logTimestampMs } from './features/channel/hub/log-timestamp.js';
export { MAX_BUFFERED_BYTES, SEND_BUFFER_FULL_REASON, type BufferedBytes } from './features/channel/caps/send-buffer.js';
export type { RequestRateLimits } from './features/channel/caps/request-rate.js';
export {
  CLOSE_POLICY_VIOLATION,
  REQUEST_FLOOD_REASON,
  type SocketCapCounts,
  type SocketCapOptions,
} from './features/channel/caps/socket-caps.js';
export { IDLE_PROGRESS, PluginProgressBoard, type PluginProgress } from './features/channel/domains/plugin-progress-board.js';
export {
  ChannelDomain,
  channelCall,
  type ChannelCall,
  type ChannelCallContext,
  type ChannelDomainOptions,
} from './features/channel/domains/channel-domain.js';
export { ChannelCallError } from './features/channel/domains/channel-call-error.js';
export type { ChannelScope } from './features/channel/domains/channel-scope.js';
export type {
  ChannelCallRequest,
  ChannelCallResult,
  ChannelDomainPort,
  ChannelEventOptions,
  ChannelRefusal,
  ChannelSend,
  ChannelSubscribeRequest,
  ChannelSubscription,
} from './features/channel/domains/channel-domain-port.js';
export { LogsDomain } from './features/channel/domains/logs-domain.js';
export { PluginProgressDomain } from './features/channel/domains/plugin-progress-domain.js';
export { SecurityDomain } from './features/channel/domains/security-domain.js';
export type { LogEntry, LogLevel, LogSource } from './features/channel/hub/log-source.js';
export { describeReceived, listSchema, type SettingNote, type SettingSource } from './settings/setting-kit.js';
export { buildOpenApiDocument } from './openapi/openapi-document.js';
export { MountError } from './mount/mount-error.js';
export {
  RouteGroup,
  type AuditDetails,
  type RouteDeclarer,
  type RouteHandler,
  type RouteMethod,
  type RouteOptions,
  type RouteRequest,
  type RouteScope,
} from './mount/route-group.js';
export type { HandlerLog, HandlerLogFn } from './mount/handler-log.js';
export { OPERATIONS, type DocumentedOperation, type Operation } from './openapi/operations.js';
export { documentedResponses, responseSchema, type StatusResponse } from './openapi/documented-responses.js';
export * as schemas from './schemas.js';
export type { WireBody, WireShape } from './wire-body.js';
export type { ClientMessage, ServerEnvelope } from './features/channel/hub/envelopes.js';
export {
  createSessionCheckShortcut,
  SESSION_CHECK_TARGET,
  type PlainRequest,
  type SessionCheckShortcut,
} from './session/check/session-check-shortcut.js';
export type { PlainAnswer } from './answers/plain-answer.js';
export { createReadAccess, type AdmittedRead, type PlainRead, type ReadAccess, type RefusedRead } from './session/request-access.js';
export { errorFields } from './answers/error-body.js';
export { plainAnswer, jsonAnswer, type JsonAnswer } from './answers/plain-answer.js';
export { banEntryJson, type BanEntryJson } from './features/bans/ban-entry-body.js';
export { apiKeyJson, KEY_REFUSAL_DETAIL, type ApiKeyJson } from './features/keys/api-key-body.js';
export { SecurityFeed, type SecurityListener } from './features/channel/domains/security-feed.js';
export { callerIdentity, type AssertedRequest, type AssertionSigner, type CallerIdentity } from './features/auth/caller-identity.js';
// For the gateway (@webui/gateway), which builds on this package: the error bodies and which methods only read there.
export { errorBody } from './answers/error-body.js';
export { isForwardedRead } from './middleware/state-change/safe-methods.js';
