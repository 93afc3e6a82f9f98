// @webui/assembly/deno: the server apps/deno runs, for a bot to run with its own routes and domains.
export { serveWebui } from './serve-webui.js';
