/**
 * The WebUI management API on Bun: Bun.serve and hono/bun's WebSocket over @webui/http-hono and @webui/core.
 *
 *   bun apps/bun/src/main.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 *
 * Settings come from the same config/bot_config.toml, WEBUI_* variables and flags as apps/server.
 */
import { getConnInfo, upgradeWebSocket, websocket } from 'hono/bun';
import { ConfigError } from '../../server/src/config/config-error.js';
import { parseConfigFlags } from '../../server/src/config/config-flags.js';
import { loadSettings } from '../../server/src/config/load-settings.js';
import { StartupError } from '../../server/src/startup-error.js';
import { assembleWebui, MAX_MESSAGE_BYTES, type AssembledWebui } from '../../server/src/portable/assemble-webui.js';

const USAGE = 'flags: --port N, --host LIST, --data-dir DIR, --config FILE, --memory (the token, setup and config commands are apps/server\'s)';
const argv = process.argv.slice(2).filter((arg) => arg !== '--memory');
const memory = argv.length < process.argv.length - 2;
let loaded;
try {
  const [unknown] = parseConfigFlags(argv).rest;
  if (unknown !== undefined) exitWith(2, `webui: unknown argument ${JSON.stringify(unknown)}; ${USAGE}`);
  loaded = loadSettings({ argv, env: process.env, cwd: process.cwd() });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  exitWith(1, `webui: configuration error: ${error.message}`);
}
if (!loaded.settings.enabled) {
  console.log(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.`);
  process.exit(0);
}

// Before the listening line: a supervisor may signal as soon as it reads it.
let running: { webui: AssembledWebui; servers: Bun.Server<unknown>[] } | undefined;
let stopRequested: NodeJS.Signals | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(signal));

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
function stop(signal: NodeJS.Signals): void {
  if (!running) {
    stopRequested ??= signal;
    return;
  }
  const { webui, servers } = running;
  running = undefined;
  webui.logger.info({ signal }, 'shutting down');
  setTimeout(() => process.exit(1), 5_000).unref();
  void webui
    .closeSockets()
    .then(() => Promise.all(servers.map((server) => server.stop(true))))
    .then(() => webui.close())
    .then(() => webui.logger.flush(() => process.exit(0)), () => process.exit(1));
}

/** One Bun.serve per host on one port (0: the first host picks it); a host that cannot be bound is skipped with a warning. */
function listenAll(webui: AssembledWebui, hosts: readonly string[], port: number): Bun.Server<unknown>[] {
  const servers: Bun.Server<unknown>[] = [];
  let chosen = port;
  for (const host of hosts) {
    const address = host.includes(':') ? `[${host}]:${chosen}` : `${host}:${chosen}`;
    try {
      const server = Bun.serve({ hostname: host, port: chosen, fetch: webui.app.fetch, websocket: { ...websocket, maxPayloadLength: MAX_MESSAGE_BYTES } });
      chosen = server.port ?? chosen;
      servers.push(server);
      webui.listening.push({ host, port: chosen });
    } catch (error) {
      if ((error as { code?: string }).code === 'EADDRINUSE') {
        for (const server of servers) void server.stop(true);
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
  process.exit(code);
}
