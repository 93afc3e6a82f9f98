export { gatewayFeature, type GatewayFeature } from './gateway-feature.js';
export type { ForwardShortcut, ParsedHeaders, ShortcutTarget } from './forwarding/forward-shortcut.js';
export { openGateway, type Gateway } from './open-gateway.js';
export { GatewayStartupError } from './gateway-startup-error.js';
export * from './settings/index.js';
export { ASSERTION_KEY_FILE, loadAssertionKey } from './assertion/upstream-assertion-key.js';
export {
  ASSERTION_LIFETIME_SECONDS,
  ASSERTION_SECRET_BYTES,
  createAssertionSigner,
  type AssertionIdSource,
} from './assertion/upstream-assertion.js';
export {
  callerIdentity,
  type AssertedRequest,
  type AssertionSigner,
  type CallerIdentity,
  type ForwardCounts,
  type UpstreamAnswerParts,
  type UpstreamChannelOptions,
  type UpstreamOptions,
  type UpstreamRequestParts,
  type UpstreamSocket,
  type UpstreamTransport,
} from './upstream-options.js';
export { HOP_BY_HOP_HEADERS, IDENTITY_HEADER_PREFIX, isFieldName, isServerHeader } from './headers/header-roles.js';
export { upstreamChannelRelay, type UpstreamChannelRelayOptions } from './relay/upstream-link.js';
export type { RelayTimers } from './relay/relay-timers.js';
export { webUpstreamClient, type UpstreamClient, type UpstreamClientFactory, type UpstreamTarget } from './client/upstream-client.js';
export { countedUpstreamClient, UpstreamCounts } from './client/counted-upstream.js';
