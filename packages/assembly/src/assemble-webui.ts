import type { BootstrapOutcome, Core, SecurityEvent, SecurityEventSink } from '@webui/core';
import {
  channelDomains,
  channelRelay,
  CLOSE_GOING_AWAY,
  createSessionCheckShortcut,
  createWebuiApp,
  extensionFeature,
  MAX_MESSAGE_BYTES,
  MountError,
  PluginProgressBoard,
  PluginProgressDomain,
  SecurityDomain,
  SecurityFeed,
  WsHub,
  type RuntimePort,
  type BufferedBytes,
  type Feature,
  type SessionCheckShortcut,
  type WebuiApp,
  type WsUpgrade,
} from '@webui/http-hono';
import {
  gatewayFeature,
  GatewayStartupError,
  openGateway,
  type ForwardShortcut,
  type Gateway,
  type UpstreamClientFactory,
} from '@webui/gateway';
import type { Logger } from 'pino';
import { createApiDocs } from './api-docs.js';
import type { LoadedSettings } from './config/index.js';
import { unixSocketPath } from './config/listen-host.js';
import { httpPolicyFrom, originOf } from './http/http-policy.js';
import type { LogFeed } from './logging/log-feed.js';
import { secretKeyFingerprint } from './startup/secret-key-fingerprint.js';
import { createSetupSite } from './setup-site.js';
import { StartupError } from './startup/startup-error.js';
import { bannerAddresses, logBootstrap, printBanner } from './startup/startup-banner.js';
import { settingWarnings } from './startup/startup-warnings.js';
import { machineAddresses, systemRandom } from './startup/system-ports.js';
import type { Storage } from './storage/storage.js';
import { auditBootstrap, reactToRecordChanges } from './http/record-change-reaction.js';
import { warnOfWeakTokenChanges } from './startup/weak-token-warning.js';
import { openTls, type TlsService } from './tls/index.js';
import type { WebuiMetrics } from './metrics/webui-metrics.js';
import { extensionsFrom, type ExtensionsSource } from './webui-extensions.js';

const SWEEP_INTERVAL_MS = 30_000;

/** What the runtime brings: the app's runtime port (Hono's getConnInfo, any speed-ups) and its WebSocket upgrade. */
export interface WebuiRuntime extends RuntimePort {
  upgrade: WsUpgrade;
  /** What one of its WebSockets holds unsent, for the hub's send cap; the web `bufferedAmount` (Node's ws, Deno) when absent. */
  bufferedBytes?: BufferedBytes;
  /** How this runtime reaches `[webui.upstream]`; the global fetch and WebSocket when absent. */
  upstreamClient?: UpstreamClientFactory;
}

export interface WebuiParts {
  loaded: LoadedSettings;
  storage: Storage;
  core: Core;
  logger: Logger;
  feed: LogFeed;
  runtime: WebuiRuntime;
  /** The server's metrics: counted from the security events, the hub, the store and the gateway; GET /metrics answers them. */
  metrics?: WebuiMetrics;
  /** The bot's route groups and channel domains (issue 34), mounted behind the same login as this server's own. */
  extensions?: ExtensionsSource;
}

/** The app over the core, not listening yet: the runtime's server binds `app.fetch`. */
export interface AssembledWebui {
  app: WebuiApp;
  hub: WsHub;
  /** The audit trail: data/audit.log (when the storage writes files) and the channel's `security` domain. */
  audit: SecurityEventSink;
  /** Plugin progress the channel's subscribers follow; the bot publishes into it. */
  progress: PluginProgressBoard;
  /** The runtime adds each address it listens on: the policy's origins and the banner use them. */
  listening: Array<{ host: string; port: number }>;
  /** The same /auth/check answer without the Hono pipeline, for a runtime that can take the shortcut. */
  sessionCheckShortcut(): SessionCheckShortcut | undefined;
  /** With [webui.tls]: the pair every TCP listener serves and its reloads (the runtime swaps it on its listeners). */
  tls: TlsService | undefined;
  /** The gateway's rules for a forwarded GET or HEAD without the Hono pipeline, for a runtime that can send it itself. */
  forwardShortcut(): ForwardShortcut | undefined;
  /** Logs the listening line and prints the banner to `out` (stderr by default). */
  announce(out?: { write(text: string): unknown }): void;
  /** Tells WebSocket clients the server is going away (1001) and waits up to `graceMs` for them to go. */
  closeSockets(graceMs?: number): Promise<void>;
  /** Stops the upkeep and closes the storage. */
  close(): Promise<void>;
}

/**
 * The one assembly every runtime runs: bootstraps the token, starts the storage's upkeep, and builds
 * the WebSocket hub, the reaction to record changes and the Hono app with its pages and docs.
 */
export async function assembleWebui({
  loaded,
  storage,
  core,
  logger,
  feed,
  runtime,
  extensions: bot,
  metrics,
}: WebuiParts): Promise<AssembledWebui> {
  const { settings } = loaded;
  const progress = new PluginProgressBoard();
  // Made first, before anything that would need undoing: a bot that cannot start stops here (with its own StartupError).
  // The bot's logger: made once, the same one in the context and in every handler.
  const botLog = logger.child({ module: 'bot' });
  const extensions = await extensionsFrom(bot, { log: botLog, logs: feed, progress, dataDir: storage.dataDir });
  // Read before anything listens or a token is made: a pair that cannot serve stops the start with one line naming the file.
  const tls = await openTls(loaded, { logger, machine: machineAddresses });
  const scheme = tls ? 'https' : 'http';
  let bootstrap: BootstrapOutcome;
  try {
    // Instances already running on a shared store keep their temporary token: this start prints the same one (docs/decisions/0011-temporary-token.md with several instances).
    const liveInstances = await storage.joinInstances();
    bootstrap = await core.tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(settings.secretKey), liveInstances });
  } catch (error) {
    throw new StartupError(`cannot write ${storage.where}: ${(error as Error).message}`);
  }
  const security = new SecurityFeed(() => Date.now());
  const sinks: SecurityEventSink[] = storage.audit ? [storage.audit, security] : [security];
  if (metrics) sinks.push(metrics.securityEvents);
  const audit: SecurityEventSink = {
    record: (event: SecurityEvent) => sinks.forEach((sink) => sink.record(event)),
    // Only the file writes later (in groups); the channel's feed has every event at once.
    written: () => storage.audit?.written() ?? null,
  };
  // The caller closes the storage if this fails (a key file it cannot make or trust).
  // A runtime that cannot reach the upstream (a Unix socket on Bun or Deno), a key file it cannot make or trust: one line names it.
  const gateway: Gateway | undefined = await openGateway(
    settings.upstream,
    storage.dataDir,
    systemRandom,
    metrics ? metrics.countUpstream(runtime.upstreamClient) : runtime.upstreamClient,
  ).catch((error: unknown) => {
    throw error instanceof GatewayStartupError ? new StartupError(error.message) : error;
  });
  logBootstrap(bootstrap, logger);
  auditBootstrap(bootstrap, audit);
  storage.watch();

  let hub: WsHub;
  let app: WebuiApp;
  const listening: AssembledWebui['listening'] = [];
  // A Unix socket has no origin of its own: its requests carry the proxy's Host.
  const origins = () =>
    listening.filter(({ host }) => unixSocketPath(host) === null).map((address) => originOf(address.host, address.port, scheme));
  const policy = httpPolicyFrom(settings, origins);
  const httpLogger = logger.child({ module: 'http' });
  const wsLogger = logger.child({ module: 'ws' });
  // With an upstream, the gateway: the paths this server does not answer go to the bot's backend.
  const forwarding = gateway ? gatewayFeature(gateway.http, { channel: gateway.channel, logger: wsLogger }) : undefined;
  // The features beside the built-in endpoints, each registered the same way; the hub serves their channel domains.
  const features: Feature[] = [
    // With an upstream, plugin_progress is the bot's: relayed like every domain the hub does not serve itself.
    ...(gateway ? [] : [extensionFeature('plugin_progress', { domains: [new PluginProgressDomain(progress)] })]),
    extensionFeature('security', { domains: [new SecurityDomain(security)] }),
    ...(forwarding ? [forwarding] : []),
    extensionFeature('extensions', {
      ...(extensions.routes ? { groups: extensions.routes } : {}),
      ...(extensions.domains ? { domains: extensions.domains } : {}),
    }),
  ];
  try {
    hub = new WsHub({
      logs: feed,
      // With an upstream, plugin_progress is the bot's: relayed like every domain the hub does not serve itself.
      domains: channelDomains(features),
      handlerLog: botLog,
      logger: wsLogger,
      now: () => Date.now(),
      newConnectionId: () => crypto.randomUUID(),
      maxMessageBytes: MAX_MESSAGE_BYTES,
      ...(runtime.bufferedBytes ? { caps: { bufferedBytes: runtime.bufferedBytes } } : {}),
      // With an upstream, every domain the hub does not serve itself is relayed to the bot's own channel.
      relay: channelRelay(features),
    });
    app = createWebuiApp({
      handlerLog: botLog,
      services: core,
      policy,
      runtime,
      logger: httpLogger,
      webSocket: { upgrade: runtime.upgrade, hub },
      audit,
      site: createSetupSite({ logger: logger.child({ module: 'site' }) }),
      docs: createApiDocs(),
      storeAvailable: () => storage.available(),
      ...(metrics ? { metrics: () => metrics.scrape() } : {}),
      features,
    });
  } catch (error) {
    gateway?.close();
    // A bot's mount that cannot work (a path this server answers, a domain taken twice): one line names it.
    throw error instanceof MountError ? new StartupError(error.message) : error;
  }
  reactToRecordChanges(storage.store, hub, audit);
  metrics?.watch({ hub, bans: core.bans, storeAvailable: () => storage.available() });
  if (tls && metrics) metrics.watchCertificate(() => (tls as TlsService).current().notAfter);
  warnOfWeakTokenChanges(storage.store, logger.child({ module: 'store' }));
  const sweeper = setInterval(() => storage.sweep(), SWEEP_INTERVAL_MS);
  // Node and Bun hand out timer objects that can be unref'd; the upkeep must never keep a process alive.
  (sweeper as { unref?: () => void }).unref?.();

  return {
    app,
    hub,
    audit,
    progress,
    listening,
    tls,
    sessionCheckShortcut: () => createSessionCheckShortcut({ services: core, policy, logger: httpLogger, audit }),
    forwardShortcut: () => forwarding?.forwardShortcut(),
    announce(out = process.stderr) {
      const warnings = settingWarnings(settings);
      printBanner(
        out,
        bannerAddresses(listening, settings.allowedHosts, machineAddresses(), scheme),
        storage,
        bootstrap,
        warnings.flatMap((warning) => warning.bannerLines),
        tls?.settings.selfSigned ? tls.current().fingerprint256 : undefined,
      );
      for (const warning of warnings) logger.warn(warning.logFields, warning.logMessage);
      const sockets = listening.map(({ host }) => host).filter((host) => unixSocketPath(host) !== null);
      logger.info(
        { addresses: [...origins(), ...sockets], dataDir: storage.dataDir, tokenSource: bootstrap.tokenSource },
        'WebUI API listening',
      );
      const upstream = settings.upstream;
      if (upstream) logger.info({ upstream: upstream.url, paths: upstream.paths }, 'forwarding to the bot backend (webui.upstream)');
    },
    async closeSockets(graceMs = 1_000) {
      hub.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
      const deadline = Date.now() + graceMs;
      // Until every runtime reports its socket closed: a server stopped sooner cuts close frames still on their way (1006).
      while (hub.size + hub.closing > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async close() {
      clearInterval(sweeper);
      tls?.close();
      gateway?.close();
      await storage.close();
    },
  };
}
