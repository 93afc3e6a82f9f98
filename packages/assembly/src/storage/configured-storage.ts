import type { Clock } from '@webui/core';
import type { Logger } from 'pino';
import type { LoadedSettings, WebuiSettings } from '../config/index.js';
import { FILE_STORE } from '../config/setting-schemas.js';
import { sharedStore } from './shared-store.js';
import type { DirectoryStore } from './directory-store.js';
import type { WebuiMetrics } from '../metrics/webui-metrics.js';
import { createFileStore, dataDirectoryStorage, type Storage } from './storage.js';

/**
 * The storage `[webui] store` names: data_dir/webui.json, or a Redis shared by several instances; each keeps its own data directory for
 * audit.log. With `metrics` (a server's, not a CLI command's) its operations are timed and its tickets counted.
 */
export function configuredStorage(loaded: LoadedSettings, clock: Clock, logger: Logger, metrics?: WebuiMetrics): Storage {
  const { settings, dataDir } = loaded;
  const options = { audit: { maxBytes: settings.auditMaxBytes, keep: settings.auditKeep }, logger };
  const shared = storeIsShared(settings);
  const state: DirectoryStore = shared
    ? sharedStore({ url: settings.store, prefix: settings.storePrefix, dataDir, clock, logger })
    : createFileStore(dataDir, clock, logger);
  return dataDirectoryStorage(metrics ? { ...state, store: metrics.observe(state.store, shared) } : state, dataDir, options);
}

/** Whether `[webui] store` names a store other processes share (Redis): bans and tickets there outlive any one server. */
export function storeIsShared(settings: Pick<WebuiSettings, 'store'>): boolean {
  return settings.store !== FILE_STORE;
}
