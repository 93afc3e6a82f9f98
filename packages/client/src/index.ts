export {
  createWebuiClient,
  API_PREFIX,
  SESSION_COOKIE,
  type WebuiClient,
  type WebuiClientOptions,
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
  type BanLiftResult,
} from './create-webui-client.js';
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
export { WebuiError, parseRetryAfter } from './webui-error.js';
export { CookieJar } from './cookie-jar.js';
export type { FetchLike } from './session-fetch.js';
