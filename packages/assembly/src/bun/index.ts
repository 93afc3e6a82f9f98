// @webui/assembly/bun: the server apps/bun runs, for a bot to run with its own routes and domains.
export { serveWebui } from './serve-webui.js';
