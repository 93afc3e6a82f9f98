/**
 * The WebUI management API on Deno: Deno.serve and hono/deno's WebSocket over @webui/http-hono and @webui/core.
 *
 * Run with the least permissions it needs, written once in apps/deno/package.json's start script:
 *   --allow-net                     listen on the configured hosts
 *   --allow-read=./config,./data    the config file and the data directory (add yours if --config/--data-dir point elsewhere)
 *   --allow-read=../server/dist/web,../../node_modules   the setup page and the Swagger UI files it serves
 *   --allow-write=./data            webui.json, its temp files and the lock
 *   --allow-env=WEBUI_CONFIG,... --ignore-env   the WEBUI_* variables; every other one reads as unset
 *   --allow-sys=hostname            pino asks for it when it loads
 *   --no-prompt                     a missing permission is an error, never a question on the terminal
 * Without --allow-run it cannot look at other processes: a data-directory lock left by a crashed
 * server is refused with a message naming the file, which the operator removes.
 *
 * Settings come from the same config/bot_config.toml, WEBUI_* variables and flags as apps/server.
 */
import { getConnInfo, upgradeWebSocket } from 'hono/deno';
import { ConfigError } from '../../server/src/config/config-error.js';
import { parseConfigFlags } from '../../server/src/config/config-flags.js';
import { loadSettings, SETTING_VARIABLES } from '../../server/src/config/load-settings.js';
import { StartupError } from '../../server/src/startup-error.js';
import { assembleWebui, type AssembledWebui } from '../../server/src/portable/assemble-webui.js';

const USAGE = 'flags: --port N, --host LIST, --data-dir DIR, --config FILE, --memory (the token, setup and config commands are apps/server\'s)';
const argv = Deno.args.filter((arg) => arg !== '--memory');
const memory = argv.length < Deno.args.length;
let loaded;
try {
  const [unknown] = parseConfigFlags(argv).rest;
  if (unknown !== undefined) exitWith(2, `webui: unknown argument ${JSON.stringify(unknown)}; ${USAGE}`);
  // Only the WEBUI_* variables: the server is granted no others.
  loaded = loadSettings({ argv, env: Object.fromEntries(SETTING_VARIABLES.map((name) => [name, Deno.env.get(name)])), cwd: Deno.cwd() });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  exitWith(1, `webui: configuration error: ${error.message}`);
}
if (!loaded.settings.enabled) {
  console.log(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.`);
  Deno.exit(0);
}

// Before the listening line: a supervisor may signal as soon as it reads it.
let running: { webui: AssembledWebui; servers: Deno.HttpServer[] } | undefined;
let stopRequested: Deno.Signal | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const) Deno.addSignalListener(signal, () => stop(signal));

let webui: AssembledWebui | undefined;
try {
  webui = await assembleWebui(loaded, { connection: { peerAddress: (c) => getConnInfo(c).remote.address, isTls: () => false }, upgrade: upgradeWebSocket }, { memory });
  running = { webui, servers: listenAll(webui, loaded.settings.host, loaded.settings.port) };
} catch (error) {
  await webui?.close();
  if (error instanceof StartupError) exitWith(1, `webui: cannot start: ${error.message}`);
  throw error;
}
webui.announce();
if (stopRequested) stop(stopRequested);

/** Closes WebSockets with 1001, stops listening, closes the store, exits 0; a signal during startup waits for it. */
function stop(signal: Deno.Signal): void {
  if (!running) {
    stopRequested ??= signal;
    return;
  }
  const { webui, servers } = running;
  running = undefined;
  webui.logger.info({ signal }, 'shutting down');
  Deno.unrefTimer(setTimeout(() => Deno.exit(1), 5_000));
  void webui
    .closeSockets()
    .then(() => Promise.all(servers.map((server) => server.shutdown())))
    .then(() => webui.close())
    .then(() => webui.logger.flush(() => Deno.exit(0)), () => Deno.exit(1));
}

/** One Deno.serve per host on one port (0: the first host picks it); a host that cannot be bound is skipped with a warning. */
function listenAll(webui: AssembledWebui, hosts: readonly string[], port: number): Deno.HttpServer[] {
  const servers: Deno.HttpServer[] = [];
  let chosen = port;
  for (const host of hosts) {
    const address = host.includes(':') ? `[${host}]:${chosen}` : `${host}:${chosen}`;
    try {
      // onListen replaces Deno's own "Listening on" line: the JSON log says it.
      const server = Deno.serve({ hostname: host, port: chosen, onListen: () => undefined }, webui.app.fetch);
      chosen = server.addr.port;
      servers.push(server);
      webui.listening.push({ host, port: chosen });
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse) {
        for (const server of servers) void server.shutdown();
        throw new StartupError(`cannot listen on ${address}: the port is already in use (set webui.port, WEBUI_PORT or --port)`);
      }
      webui.logger.warn({ host, port: chosen }, `cannot listen on ${address}: ${(error as Error).message}; continuing without it`);
    }
  }
  if (servers.length === 0) throw new StartupError(`could not listen on any of ${hosts.join(', ')} (port ${port}); check webui.host`);
  return servers;
}

function exitWith(code: number, line: string): never {
  console.error(line);
  Deno.exit(code);
}
