import type { WebuiRuntime } from './assemble-webui.js';
import { composeWebui, configuredStorageFactory, memoryStorageFactory } from './compose-webui.js';
import { ConfigError, loadSettings, parseConfigFlags, type LoadedSettings } from './config/index.js';
import { unixSocketPath } from './config/listen-host.js';
import { listenOnHosts, type Bound, type HostBinder } from './startup/listen-on-hosts.js';
import type { TlsService } from './tls/index.js';
import { StartupError } from './startup/startup-error.js';
import { stopOnSignals, type ProcessControl } from './startup/stop-on-signals.js';
import { startWebui, type StartedWebui } from './startup/start-webui.js';
import type { ExtensionsSource } from './webui-extensions.js';
import { listenForMetrics, type ListenWith } from './metrics/metrics-port.js';
import { systemClock, systemRandom } from './startup/system-ports.js';
import { servedOverTls, type PemPair } from './portable-tls.js';

const USAGE =
  "flags: --port N, --host LIST, --data-dir DIR, --config FILE, --memory (the token, setup and config commands are apps/server's)";

/** A runtime without the Node CLI (Bun, Deno): its arguments, process, servers and WebSocket upgrade. */
export interface PortableRuntime<Server> extends WebuiRuntime, Omit<HostBinder<Server>, 'bind'>, ProcessControl {
  /** Starts one server for `host` that answers with `fetch` (passing on what the runtime gives it); port 0 picks one. Throws when it cannot. */
  serve(
    host: string,
    port: number,
    fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  ): { server: Server; port: number } | Promise<{ server: Server; port: number }>;
  /** Like serve, but HTTPS with this PEM pair. Absent: a `[webui.tls]` setting stops the start. */
  serveTls?(
    host: string,
    port: number,
    fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
    pair: PemPair,
  ): { server: Server; port: number } | Promise<{ server: Server; port: number }>;
  /** The runtime's name in the line saying it cannot reload a certificate, e.g. "Bun". */
  name?: string;
  args: readonly string[];
  cwd: string;
  /** Reads one variable: one of SETTING_VARIABLES, or one that webui.upstream.headers names with ${NAME}. */
  env(name: string): string | undefined;
}

/**
 * The whole life of a Bun or Deno server (or a bot's, on any runtime): flags and settings, storage (`--memory` or the data
 * directory), the assembly with the bot's `extensions`, one server per host, the announcement, and a clean stop on
 * SIGTERM/SIGINT. Resolves with the running server, or undefined when it did not start (it has exited with why).
 */
export async function runPortableServer<Server>(
  runtime: PortableRuntime<Server>,
  extensions?: ExtensionsSource,
): Promise<StartedWebui<Server> | undefined> {
  const argv = runtime.args.filter((arg) => arg !== '--memory');
  const memory = argv.length < runtime.args.length;
  let loaded: LoadedSettings;
  try {
    const [unknown] = parseConfigFlags(argv).rest;
    if (unknown !== undefined) return exitWith(runtime, 2, `webui: unknown argument ${JSON.stringify(unknown)}; ${USAGE}`);
    // Read one by one: the WEBUI_* variables and those webui.upstream.headers names, which a runtime may have to be granted.
    loaded = loadSettings({ argv, env: (name) => runtime.env(name), cwd: runtime.cwd });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return exitWith(runtime, 1, `webui: configuration error: ${error.message}`);
  }
  if (!loaded.settings.enabled) {
    console.log(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.`);
    runtime.exit(0);
    return undefined;
  }

  // Their serve APIs take a socket path, but not who is on the other end: the client rule (docs/decisions/0003-client-address.md) could not be kept.
  const socketHost = loaded.settings.host.find((host) => unixSocketPath(host) !== null);
  if (socketHost !== undefined)
    return exitWith(
      runtime,
      1,
      `webui: cannot start: webui.host ${socketHost}: unix sockets are supported on the Node server (apps/server)`,
    );

  if (loaded.settings.tls !== undefined && runtime.serveTls === undefined)
    return exitWith(runtime, 1, `webui: cannot start: webui.tls: ${runtime.name ?? 'this runtime'} cannot serve HTTPS`);

  const hand = stopOnSignals(runtime);
  const { feed, logger, metrics, storage, core } = composeWebui({
    loaded,
    clock: systemClock,
    random: systemRandom,
    logDestination: process.stdout,
    storage: memory ? memoryStorageFactory : configuredStorageFactory,
  });
  // Their serve APIs tell the server nothing of connections, only of requests (docs/decisions/0041-open-connections-per-client.md).
  logger.info(
    { maxConnectionsPerClient: loaded.settings.maxConnectionsPerClient },
    `${runtime.name ?? 'this runtime'} cannot cap the connections each client holds: max_connections_per_client applies on Node`,
  );
  try {
    const listen = (hosts: readonly string[], port: number, fetch: Parameters<ListenWith<Server>>[2], pair?: PemPair) =>
      listenOnHosts(
        hosts,
        port,
        {
          bind: async (host, chosen) =>
            pair !== undefined && runtime.serveTls !== undefined
              ? runtime.serveTls(host, chosen, fetch, pair)
              : runtime.serve(host, chosen, fetch),
          isAddressInUse: (error) => runtime.isAddressInUse(error),
          stop: (server) => runtime.stop(server),
        },
        logger,
      );
    let metricsServers: Array<Bound<Server>> = [];
    const started = await startWebui({ loaded, storage, core, logger, feed, runtime, extensions, metrics }, async (assembled) => {
      // [webui] metrics_port, bound first: a port in use stops the start before the API listens or anything is announced.
      metricsServers = await listenForMetrics(loaded.settings.metricsPort, loaded.configPath, metrics, listen, logger);
      try {
        const { fetch, pair } = servedOverTls(assembled.app.fetch, assembled.tls);
        return await listen(loaded.settings.host, loaded.settings.port, fetch, pair);
      } catch (error) {
        await Promise.all(metricsServers.map(({ server }) => runtime.stop(server)));
        throw error;
      }
    });
    const { webui, servers } = started;
    if (webui.tls !== undefined) sayReloadUnsupported(runtime, webui.tls);
    hand({
      logger,
      async close() {
        // Sockets are told 1001 first: Bun's stop(true) would cut them without a close frame.
        await webui.closeSockets();
        await Promise.all([...servers, ...metricsServers].map(({ server }) => runtime.stop(server)));
        await webui.close();
      },
    });
    return started;
  } catch (error) {
    if (error instanceof StartupError) return exitWith(runtime, 1, `webui: cannot start: ${error.message}`);
    throw error;
  }
}

/**
 * Neither Bun nor Deno can give new handshakes a new certificate while open connections stay (Bun's server.reload() keeps the
 * first one, oven-sh/bun#43815; Deno.serve takes it once): one line says so, SIGHUP repeats it instead of ending the process,
 * and the files are not watched. docs/https.md#on-bun-and-deno.
 */
function sayReloadUnsupported<Server>(runtime: PortableRuntime<Server>, tls: TlsService): void {
  const unsupported = () => tls.reloadUnsupported(runtime.name ?? 'this runtime');
  unsupported();
  runtime.onSignal('SIGHUP', unsupported);
}

function exitWith(runtime: ProcessControl, code: number, line: string): undefined {
  console.error(line);
  runtime.exit(code);
  return undefined;
}
