/**
 * The WebUI management API on Bun: `serveWebui` of @webui/assembly/bun (Bun.serve with hono/bun's WebSocket and client
 * address), which reads the same settings as apps/server.
 *
 *   bun --conditions=source src/main.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { serveWebui } from '@webui/assembly/bun';

await serveWebui();
