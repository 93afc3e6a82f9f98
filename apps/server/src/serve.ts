import { BanPolicy, SetupState, TokenService, WsTicketIssuer, type BootstrapOutcome } from '@webui/core';
import { createSessionCheckShortcut, createWebuiApp } from '@webui/http-hono';
import { JsonFileStore } from '@webui/store-json';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { LoadedSettings } from './config/loaded-settings.js';
import { createContainer, type ContainerOverrides } from './container.js';
import { httpPolicyFrom, originOf } from './http-policy.js';
import { InstanceLock } from './instance-lock.js';
import { createApiDocs } from './api-docs.js';
import { bindAll, closeServer, type BoundListener } from './listeners.js';
import { createLogger } from './logging/create-logger.js';
import { LogFeed } from './logging/log-feed.js';
import { nodeConnection } from './runtime/node-connection.js';
import { secretKeyFingerprint } from './runtime/secret-key-fingerprint.js';
import { createSetupSite } from './setup-site.js';
import { StartupError } from './startup-error.js';
import { logBootstrap, printBanner } from './startup-banner.js';
import { closeSocketsOnTokenChange } from './token-change-reaction.js';
import { WebSocketChannel } from './websocket-channel.js';

export interface RunningServer {
  listeners: BoundListener[];
  logger: Logger;
  channel: WebSocketChannel;
  /** Stops accepting, closes connections and the store. */
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Human-readable startup banner goes here; logs are JSON lines on stdout. */
  banner?: NodeJS.WritableStream;
  logDestination?: NodeJS.WritableStream;
  overrides?: ContainerOverrides;
  /** How often sockets are pinged; tests shorten it. */
  heartbeatMs?: number;
}

const SWEEP_INTERVAL_MS = 30_000;

export async function serve(loaded: LoadedSettings, options: ServeOptions = {}): Promise<RunningServer> {
  const { settings } = loaded;
  const feed = new LogFeed();
  const logger = createLogger(settings.logLevel, feed, options.logDestination);
  const container = createContainer(loaded, logger, feed, options.overrides);

  const lock = InstanceLock.acquire(loaded.dataDir);
  const store = container.resolve(JsonFileStore);
  try {
    await store.open();
  } catch (error) {
    lock.release();
    throw new StartupError((error as Error).message);
  }
  const tokens = container.resolve(TokenService);
  let bootstrap: BootstrapOutcome;
  try {
    bootstrap = await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(settings.secretKey) });
  } catch (error) {
    await store.close();
    lock.release();
    throw new StartupError(`cannot write ${store.path}: ${(error as Error).message}`);
  }
  logBootstrap(bootstrap, logger);
  store.watch();

  let listeners: BoundListener[] = [];
  const root = new Hono();
  const channel = new WebSocketChannel(root, feed, logger.child({ module: 'ws' }), options.heartbeatMs);
  closeSocketsOnTokenChange(store, channel.hub);
  const services = { tokens, setup: container.resolve(SetupState), bans: container.resolve(BanPolicy), tickets: container.resolve(WsTicketIssuer) };
  const policy = httpPolicyFrom(settings, () => listeners.map((listener) => originOf(listener.host, listener.port)));
  const httpLogger = logger.child({ module: 'http' });
  const app = createWebuiApp({
    services,
    policy,
    connection: nodeConnection,
    logger: httpLogger,
    webSocket: { upgrade: channel.upgrade, hub: channel.hub },
    site: createSetupSite({ logger: logger.child({ module: 'site' }) }),
    docs: createApiDocs(),
  });
  root.route('/', app);

  try {
    // HTTP goes to the app itself: mounted in root it would lose its JSON notFound (D1) to Hono's text 404.
    // root only serves the WebSocket upgrade lookup.
    // The dashboard's poll, GET /auth/check, skips the Hono pipeline when it can (same checks, same answer).
    listeners = await bindAll(settings.host, settings.port, app.fetch, logger, createSessionCheckShortcut({ services, policy, logger: httpLogger }));
    for (const listener of listeners) channel.attach(listener.server);
  } catch (error) {
    await channel.close();
    await store.close();
    lock.release();
    throw error;
  }
  const sweeper = setInterval(() => store.sweep(), SWEEP_INTERVAL_MS);
  sweeper.unref();

  const origins = listeners.map((l) => originOf(l.host, l.port));
  printBanner(options.banner ?? process.stderr, origins, store.path, bootstrap);
  logger.info({ addresses: origins, dataDir: loaded.dataDir, tokenSource: bootstrap.tokenSource }, 'WebUI API listening');

  return {
    listeners,
    logger,
    channel,
    async close() {
      clearInterval(sweeper);
      // Stop accepting first, so no handshake slips in after the sockets were told 1001.
      const stopped = Promise.all(listeners.map((listener) => closeServer(listener.server)));
      await channel.close();
      await stopped;
      await store.close();
      lock.release();
    },
  };
}
