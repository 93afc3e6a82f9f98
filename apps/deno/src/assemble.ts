import { BanPolicy, MemoryStore, RecordEditor, SetupState, TokenService, WsTicketIssuer, type BootstrapOutcome, type Clock, type RandomSource } from '@webui/core';
import { CLOSE_GOING_AWAY, createWebuiApp, PluginProgressBoard, WsHub, type ConnectionInfo, type WsUpgrade } from '@webui/http-hono';
import { JsonFileStore, RECORD_FILE_NAME } from '@webui/store-json';
// Runtime-neutral parts of the Node deployment that Deno runs unchanged through its Node compatibility.
import { createApiDocs } from '../../server/src/api-docs.js';
import type { LoadedSettings } from '../../server/src/config/loaded-settings.js';
import { httpPolicyFrom, originOf } from '../../server/src/http-policy.js';
import { InstanceLock } from '../../server/src/instance-lock.js';
import { createLogger } from '../../server/src/logging/create-logger.js';
import { LogFeed } from '../../server/src/logging/log-feed.js';
import { secretKeyFingerprint } from '../../server/src/runtime/secret-key-fingerprint.js';
import { createSetupSite } from '../../server/src/setup-site.js';
import { StartupError } from '../../server/src/startup-error.js';

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
 * The core, its Store and the Hono app, wired as apps/server wires them: `memory` keeps the token
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
  // Sockets opened under a token that stopped being valid close at once with 4001 (DESIGN D13), hand edits included.
  tokens.onTokenChanged((previous) => hub.revokeSession(previous));
  fileStore?.onRecordChanged((record, previous) => {
    if (previous && record?.accessToken !== previous.accessToken) {
      hub.revokeSession(previous.accessToken);
      void fileStore?.revokeTickets(previous.accessToken);
    }
  });

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
      const dataFile = fileStore ? `${loaded.dataDir}/${RECORD_FILE_NAME}` : 'in memory (--memory: nothing is written)';
      printBanner(origins(), dataFile, bootstrap);
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

function logBootstrap(outcome: BootstrapOutcome, logger: Logger): void {
  if (outcome.reason === 'secret_key_changed') {
    logger.warn({}, 'webui.secret_key changed: every session is revoked and a new temporary token was made');
  }
  if (outcome.temporaryToken) {
    // The specification has the temporary token printed in the startup log; a configured one never is (D11).
    logger.info({ temporary_token: outcome.temporaryToken, reason: outcome.reason }, 'temporary access token generated; log in with it and set your own');
  }
}

function printBanner(origins: string[], dataFile: string, outcome: BootstrapOutcome): void {
  const lines = ['', 'WebUI management API', `  listening   ${origins.map((origin) => `${origin}/api/webui`).join('  ')}`, `  data        ${dataFile}`];
  if (outcome.temporaryToken) {
    lines.push(`  token       temporary: ${outcome.temporaryToken}`, `  login URL   ${origins[0]}/?token=${outcome.temporaryToken}`);
  } else {
    lines.push('  token       configured (not shown; it is the access_token field of the data file)');
  }
  console.error(`${lines.join('\n')}\n`);
}
