// @webui/gateway/node: the Node server's upstream client (undici for HTTP, with Unix sockets; ws for the channel).
export { nodeUpstreamClient, upstreamAgent } from './node-upstream-client.js';
