/** The gateway to the bot's own backend (issue 33): its options from the settings, and the caller assertion it signs. */
export { ASSERTION_KEY_FILE, loadAssertionKey } from './upstream-assertion-key.js';
export { ASSERTION_LIFETIME_SECONDS, ASSERTION_SECRET_BYTES, createAssertionSigner } from '@webui/gateway';
export { UNIX_SOCKET_ORIGIN, upstreamOptionsFrom, type UpstreamRuntimeParts } from './upstream-options-from.js';
export { webUpstreamClient, type UpstreamClient, type UpstreamClientFactory, type UpstreamTarget } from '@webui/gateway';
export { openGateway, type Gateway } from './gateway.js';
