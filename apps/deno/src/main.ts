/**
 * The WebUI management API on Deno: `serveWebui` of @webui/assembly/deno (Deno.serve with hono/deno's WebSocket and
 * client address), which reads the same settings as apps/server.
 *
 * Run with the least permissions it needs, written once in apps/deno/package.json's start script:
 *   --allow-net                     listen on the configured hosts
 *   --allow-read=./config,./data    the config file and the data directory (add yours if --config/--data-dir point elsewhere)
 *   --allow-read=../../packages/assembly/dist/web,../../node_modules   the setup page and the Swagger UI files it serves
 *   --allow-write=./data            webui.json, its temp files and the lock
 *   --allow-env=WEBUI_CONFIG,... --ignore-env   the WEBUI_* variables; every other one reads as unset, so a
 *                                   webui.upstream.headers value's ${NAME} needs NAME added here by the operator
 *   --allow-sys=hostname,networkInterfaces   pino asks for the host name; a 0.0.0.0 bind's banner lists the machine's addresses
 *   --no-prompt                     a missing permission is an error, never a question on the terminal
 *   --conditions=source             the workspace packages from their TypeScript sources
 * Without --allow-run it cannot look at other processes: a data-directory lock left by a crashed
 * server is refused with a message naming the file, which the operator removes.
 */
import { serveWebui } from '@webui/assembly/deno';

await serveWebui();
