import { BanPolicy, MemoryStore, RecordEditor, SetupState, TokenService, WsTicketIssuer, type BootstrapOutcome, type Clock, type RandomSource } from '@webui/core';
import { CLOSE_GOING_AWAY, createWebuiApp, PluginProgressBoard, WsHub, type ConnectionInfo, type WsUpgrade } from '@webui/http-hono';
import { JsonFileStore } from '@webui/store-json';
import { createApiDocs } from '../api-docs.js';
import type { LoadedSettings } from '../config/loaded-settings.js';
import { httpPolicyFrom, originOf } from '../http-policy.js';
import { InstanceLock } from '../instance-lock.js';
import { createLogger } from '../logging/create-logger.js';
import { LogFeed } from '../logging/log-feed.js';
import { secretKeyFingerprint } from '../runtime/secret-key-fingerprint.js';
import { createSetupSite } from '../setup-site.js';
import { StartupError } from '../startup-error.js';
import { logBootstrap, printBanner } from '../startup-banner.js';
import { closeSocketsOnTokenChange } from '../token-change-reaction.js';

export const MAX_MESSAGE_BYTES = 64 * 1024;
const SWEEP_INTERVAL_MS = 30_000;
const STORE_EVENT_LEVELS: Record<string, 'info' | 'warn'> = { reloaded: 'info', 'insecure-permissions': 'warn' };

/** What the runtime brings: its connection facts and its WebSocket upgrade. */
export interface RuntimeParts {
  connection: ConnectionInfo;
  upgrade: WsUpgrade;
}

/** The app over the core, not listening yet: the runtime's server binds `app.fetch`. */
export interface AssembledWebui {
  app: ReturnType<typeof createWebuiApp>;
  hub: WsHub;
  logger: Logger;
  /** Filled in by the runtime once it listens: the origins the policy and the banner use. */
  listening: Array<{ host: string; port: number }>;
  /** Logs the listening line and prints the banner. */
  announce(): void;
  /** Tells WebSocket clients the server is going away (1001), waits up to `graceMs` for them. */
  closeSockets(graceMs?: number): Promise<void>;
  /** Stops the sweeper, closes the store and releases the data directory. */
  close(): Promise<void>;
}

type Logger = ReturnType<typeof createLogger>;

const systemClock: Clock = { now: () => Date.now() };
// Web Crypto: the same call on every runtime.
const webRandom: RandomSource = { bytes: (length) => crypto.getRandomValues(new Uint8Array(length)) };

/**
 * Bun's and Deno's wiring (they run it through their Node compatibility; Node itself uses serve.ts
 * with its tsyringe container). The core, its Store and the Hono app, wired as apps/server wires them: `memory` keeps the token
 * record in memory (a quick start: nothing is written), otherwise <dataDir>/webui.json is used.
 */
export async function assembleWebui(loaded: LoadedSettings, runtime: RuntimeParts, options: { memory: boolean }): Promise<AssembledWebui> {
  const { settings } = loaded;
  const feed = new LogFeed();
  const logger = createLogger(settings.logLevel, feed);

  let fileStore: JsonFileStore | undefined;
  let lock: InstanceLock | undefined;
  if (!options.memory) {
    lock = InstanceLock.acquire(loaded.dataDir);
    const storeLogger = logger.child({ module: 'store' });
    fileStore = new JsonFileStore({
      dataDir: loaded.dataDir,
      clock: systemClock,
      onEvent: (event) => storeLogger[STORE_EVENT_LEVELS[event.kind] ?? 'error']({ event }, `webui.json: ${event.kind}`),
    });
    try {
      await fileStore.open();
    } catch (error) {
      lock.release();
      throw new StartupError((error as Error).message);
    }
  }
  const store = fileStore ?? new MemoryStore(systemClock);
  const editor = new RecordEditor(store);
  const tokens = new TokenService(store, editor, webRandom);
  const services = { tokens, setup: new SetupState(editor), bans: new BanPolicy(store, systemClock), tickets: new WsTicketIssuer(store, tokens, systemClock, webRandom) };

  const bootstrap = await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(settings.secretKey) });
  logBootstrap(bootstrap, logger);
  fileStore?.watch();

  const hub = new WsHub({ logs: feed, progress: new PluginProgressBoard(), logger: logger.child({ module: 'ws' }), now: () => Date.now(), newConnectionId: () => crypto.randomUUID(), maxMessageBytes: MAX_MESSAGE_BYTES });
  if (fileStore) closeSocketsOnTokenChange(fileStore, hub);
  // The memory store has no change events: the API's own rotations are the only changes there.
  else tokens.onTokenChanged((previous) => hub.revokeSession(previous));

  const listening: AssembledWebui['listening'] = [];
  const origins = () => listening.map((l) => originOf(l.host, l.port));
  const app = createWebuiApp({
    services,
    policy: httpPolicyFrom(settings, origins),
    connection: runtime.connection,
    logger: logger.child({ module: 'http' }),
    webSocket: { upgrade: runtime.upgrade, hub },
    site: createSetupSite({ logger: logger.child({ module: 'site' }) }),
    docs: createApiDocs(),
  });
  const sweeper = fileStore ? setInterval(() => fileStore.sweep(), SWEEP_INTERVAL_MS) : undefined;

  return {
    app,
    hub,
    logger,
    listening,
    announce() {
      const dataFile = fileStore ? fileStore.path : 'in memory (--memory: nothing is written)';
      printBanner(process.stderr, origins(), dataFile, bootstrap);
      logger.info({ addresses: origins(), dataDir: fileStore ? loaded.dataDir : null, tokenSource: bootstrap.tokenSource }, 'WebUI API listening');
    },
    async closeSockets(graceMs = 1_000) {
      hub.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
      const deadline = Date.now() + graceMs;
      while (hub.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async close() {
      clearInterval(sweeper);
      await fileStore?.close();
      lock?.release();
    },
  };
}
