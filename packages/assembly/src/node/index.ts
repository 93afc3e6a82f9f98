// @webui/assembly/node: the Node server, the one apps/server runs, for a bot to run with its own routes and domains.
export { serveWebui } from './serve-webui.js';
export { runCli } from './cli.js';
export type { CliIo } from './cli/cli-io.js';
export { createContainer, composedParts, nodeParts, TOKENS, type NodeParts } from './container.js';
export { serve, type RunningServer, type ServeOptions } from './serve.js';
export type { BoundListener } from './listeners.js';
// The Node speed-ups, exported so that tests hold them to the answers of the Hono routes they stand in for.
export { nodeRuntimePort } from './runtime/node-runtime-port.js';
export { withSessionCheckShortcut } from './fast-path/session-check-listener.js';
export { withForwardShortcut, type ForwardListener } from './fast-path/forward-listener.js';
export { appListener } from './listeners.js';
