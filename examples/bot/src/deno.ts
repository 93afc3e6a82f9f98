/**
 * The example bot on Deno: Deno.serve with hono/deno's WebSocket, as apps/deno runs it.
 *   deno run --config=deno.json --allow-net --allow-sys=hostname,networkInterfaces --allow-env --allow-read --allow-write=./data src/deno.ts
 */
import { serveWebui } from '@webui/assembly/deno';
import { exampleBot } from './bot.js';

await serveWebui(exampleBot('deno'));
