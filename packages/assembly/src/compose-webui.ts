import { createCore, type Clock, type Core, type RandomSource } from '@webui/core';
import type { Logger } from 'pino';
import { banPolicyFrom } from './http/ban-settings.js';
import type { LoadedSettings } from './config/index.js';
import { configuredStorage } from './storage/configured-storage.js';
import { createLogger } from './logging/create-logger.js';
import { LogFeed } from './logging/log-feed.js';
import type { LogDestination } from './logging/readable-lines.js';
import { WebuiMetrics } from './metrics/webui-metrics.js';
import { memoryStorage, type Storage } from './storage/storage.js';

/** Makes the storage from the parts built before it. */
export type StorageFactory = (made: { loaded: LoadedSettings; clock: Clock; logger: Logger; metrics: WebuiMetrics }) => Storage;

/** The storage `[webui] store` names: data_dir/webui.json with its lock and audit trail, or a shared Redis. */
export const configuredStorageFactory: StorageFactory = ({ loaded, clock, logger, metrics }) =>
  configuredStorage(loaded, clock, logger, metrics);

/** State in memory only (`--memory`, tests): nothing is written. */
export const memoryStorageFactory: StorageFactory = ({ clock, logger }) => memoryStorage(clock, logger);

/** What a runtime brings: its settings, the core's ports of time and randomness, where log lines go, and the storage. */
export interface RuntimeParts {
  loaded: LoadedSettings;
  clock: Clock;
  random: RandomSource;
  logDestination: LogDestination;
  /** `configuredStorageFactory` when absent. */
  storage?: StorageFactory;
}

/** The parts every runtime runs, built the same way on Node, Bun and Deno. */
export interface ComposedWebui {
  loaded: LoadedSettings;
  feed: LogFeed;
  logger: Logger;
  metrics: WebuiMetrics;
  storage: Storage;
  core: Core;
}

/**
 * The one composition of the parts a runtime runs: the log and its feed, the metrics, the storage
 * (not opened yet) and the core over its store, the clock and the randomness. The Node server's
 * composition root and `runPortableServer` (Bun, Deno) both build their parts through it.
 */
export function composeWebui(runtime: RuntimeParts): ComposedWebui {
  const { loaded, clock, random } = runtime;
  const feed = new LogFeed();
  const logger = createLogger(loaded.settings.logLevel, feed, runtime.logDestination, loaded.settings.logFormat);
  const metrics = new WebuiMetrics();
  const storage = (runtime.storage ?? configuredStorageFactory)({ loaded, clock, logger, metrics });
  const core = createCore({ store: storage.store, clock, random, banPolicy: banPolicyFrom(loaded.settings) });
  return { loaded, feed, logger, metrics, storage, core };
}
