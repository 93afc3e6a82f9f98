import { listenForMetrics, startWebui, toCidr, type AssembledWebui, type ExtensionsSource, type StartedWebui } from '../index.js';
import { SESSION_CHECK_TARGET } from '@webui/http-hono';
import type { Logger } from 'pino';
import type { Server } from 'node:http';
import type { NodeParts } from './container.js';
import { openControlSocket, type ControlSocket } from './control/control-socket.js';
import { bindAll, closeServer, type BoundListener } from './listeners.js';
import { serveTlsReloads } from './tls-reloads.js';
import { collectEveryMiB, growYoungGenerationForWaitingRequests } from './runtime/tight-heap.js';
import { requestsWait } from './runtime/waiting-requests.js';
import { ConnectionCap, reportRefusals } from './runtime/connection-cap.js';
import { nodeUpstreamClient } from '@webui/gateway/node';
import type { UpstreamTarget } from '@webui/gateway';

export interface RunningServer {
  listeners: BoundListener[];
  logger: Logger;
  webui: AssembledWebui;
  /** Stops accepting, closes connections and the store. */
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Human-readable startup banner goes here; logs are JSON lines on the container's LogDestination. */
  banner?: { write(text: string): unknown };
  /** A bot's route groups and channel domains, mounted behind the login (issue 34). */
  extensions?: ExtensionsSource;
}

/** Runs the WebUI API on Node from its composed parts (`nodeParts` of the container). */
export async function serve(nodeParts: NodeParts, options: ServeOptions = {}): Promise<RunningServer> {
  const { loaded, logger, channel } = nodeParts;
  const parts = {
    loaded,
    storage: nodeParts.storage,
    core: nodeParts.core,
    logger,
    feed: nodeParts.feed,
    metrics: nodeParts.metrics,
    runtime: {
      ...nodeParts.runtimePort,
      upgrade: channel.upgrade,
      upstreamClient: (target: UpstreamTarget) => nodeUpstreamClient(target, { relayed: collectEveryMiB() }),
    },
    ...(options.extensions ? { extensions: options.extensions } : {}),
  };
  const dataDir = parts.storage.dataDir;
  // Across every TCP listener of the API (docs/decisions/0041-open-connections-per-client.md).
  const connectionCap = new ConnectionCap({
    perClient: loaded.settings.maxConnectionsPerClient,
    trustedProxies: loaded.settings.trustedProxies.map(toCidr),
    refused: reportRefusals(logger, loaded.settings.maxConnectionsPerClient, parts.metrics.countRefusedConnections()),
  });
  // Set inside the listen callback; the cast keeps TypeScript from narrowing it to null out here.
  let control = null as ControlSocket | null;
  let metricsListeners: BoundListener[] = [];
  let stopTlsReloads = (): void => undefined;
  const metricsListen = (hosts: readonly string[], port: number, fetch: Parameters<typeof bindAll>[2]) =>
    bindAll(hosts, port, fetch, logger);
  let started: StartedWebui<Server>;
  try {
    started = await startWebui(
      parts,
      async (webui) => {
        // [webui] metrics_port: the scrape without a credential, on loopback only; bound first, so a port in use leaves nothing else open.
        metricsListeners = await listenForMetrics(loaded.settings.metricsPort, loaded.configPath, parts.metrics, metricsListen, logger);
        // The dashboard's poll, GET /auth/check, skips the Hono pipeline when it can (same checks, same answer).
        const sessionCheck = webui.sessionCheckShortcut();
        // And a forwarded GET or HEAD, sent by undici's dispatch (same rules, same answers).
        const forward = webui.forwardShortcut();
        const listeners = await bindAll(loaded.settings.host, loaded.settings.port, webui.app.fetch, logger, {
          sessionCheck,
          forward,
          tls: webui.tls,
          onConnection: connectionCap.admit,
        });
        if (webui.tls) stopTlsReloads = serveTlsReloads(webui.tls, listeners);
        // Every way in that skips the Hono app, as the entry census reads it from the running server.
        const fastPaths = [
          ...(sessionCheck ? [`GET ${SESSION_CHECK_TARGET}`] : []),
          ...(forward ? ['GET forwarded', 'HEAD forwarded'] : []),
        ];
        logger.info({ fastPaths }, 'Node fast paths in front of the app');
        for (const listener of listeners) channel.attach(listener.server, webui.app);
        // The instance lock is held by now, so a socket file left by a killed server is safe to replace; opened
        // before the listening line, so `webui bans` reaches a server as soon as it says it listens.
        if (dataDir !== null)
          control = await openControlSocket({
            dataDir,
            core: parts.core,
            audit: webui.audit,
            logger: logger.child({ module: 'control' }),
            tls: webui.tls,
          });
        return listeners;
      },
      options.banner,
    );
  } catch (error) {
    stopTlsReloads();
    await control?.close();
    await Promise.all(metricsListeners.map((listener) => closeServer(listener.server)));
    channel.close();
    throw error;
  }
  const { webui, servers: listeners } = started;
  const stopGrowing = requestsWait(loaded.settings) ? growYoungGenerationForWaitingRequests() : () => undefined;

  return {
    listeners,
    logger,
    webui,
    async close() {
      stopTlsReloads();
      stopGrowing();
      // Stop accepting first, so no handshake slips in after the sockets were told 1001.
      const stopped = Promise.all([...listeners, ...metricsListeners].map((listener) => closeServer(listener.server)));
      // Gone before the store closes and the lock is released, so the socket file never outlives the server.
      await control?.close();
      await webui.closeSockets();
      channel.close();
      await stopped;
      await webui.close();
    },
  };
}
