export {
  createWebuiClient,
  SESSION_COOKIE,
  type WebuiClient,
  type WebuiApi,
  type HealthResult,
  type VerifyResult,
  type CheckResult,
  type UpdateTokenResult,
  type RegenerateResult,
  type LogoutResult,
  type SetupStatus,
  type SetupChangeResult,
  type TokenSource,
  type WsTicketResult,
  type BanEntry,
  type BanListResult,
  type BanLiftResult,
  type KeyEntry,
  type KeyScope,
  type KeyListResult,
  type KeyCreatedResult,
  type KeyRevokedResult,
  type CreateKeyOptions,
} from './create-webui-client.js';
export { API_PREFIX, DEFAULT_TIMEOUT_MS, type WebuiClientOptions } from './client-options.js';
export {
  type WebuiChannel,
  type ChannelOptions,
  type ChannelEvent,
  type ChannelEventMap,
  type ChannelEventData,
  type ChannelResponse,
  type ChannelClose,
  type ChannelSubscribeDataMap,
  type WebSocketLike,
  type WebSocketConstructor,
} from './channel.js';
export type { CallOptions } from './session/call-signal.js';
export type { TokenChange } from './session/token-change.js';
export { WebuiError, parseRetryAfter, type BodyProblem, type RequiredScope } from './webui-error.js';
export { CookieJar } from './session/cookie-jar.js';
export type { FetchLike } from './session/session-fetch.js';
