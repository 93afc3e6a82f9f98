/**
 * The WebUI management API on Deno: Deno.serve with hono/deno's WebSocket and client address, over
 * the shared assembly (@webui/assembly), which reads the same settings as apps/server.
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
import { runPortableServer } from '@webui/assembly';
import { getConnInfo, upgradeWebSocket } from 'hono/deno';

await runPortableServer<Deno.HttpServer>({
  args: Deno.args,
  cwd: Deno.cwd(),
  env: (name) => Deno.env.get(name),
  getConnInfo,
  upgrade: upgradeWebSocket,
  serve(host, port, fetch) {
    // onListen replaces Deno's own "Listening on" line: the JSON log says it.
    const server = Deno.serve({ hostname: host, port, onListen: () => undefined }, fetch);
    return { server, port: server.addr.port };
  },
  isAddressInUse: (error) => error instanceof Deno.errors.AddrInUse,
  stop: (server) => server.shutdown(),
  onSignal: (signal, handler) => Deno.addSignalListener(signal, handler),
  exit: (code) => Deno.exit(code),
  unrefTimer: (timer) => Deno.unrefTimer(timer),
});
