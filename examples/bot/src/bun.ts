/**
 * The example bot on Bun: Bun.serve with hono/bun's WebSocket, as apps/bun runs it.
 *   bun src/bun.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { serveWebui } from '@webui/assembly/bun';
import { exampleBot } from './bot.js';

await serveWebui(exampleBot('bun'));
