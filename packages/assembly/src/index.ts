export { assembleWebui, type AssembledWebui, type WebuiParts, type WebuiRuntime } from './assemble-webui.js';
export {
  ConfigError,
  describeSettings,
  loadSettings,
  parseConfigFlags,
  SETTING_VARIABLES,
  type LoadedSettings,
  type UpstreamSettings,
  type WebuiSettings,
} from './config/index.js';
export { createLogger, type LogFormat } from './logging/create-logger.js';
export { readableLines, writesReadable, type LogDestination } from './logging/readable-lines.js';
export { dashboardLevel, LogFeed } from './logging/log-feed.js';
export { createFileStore, dataDirectoryStorage, memoryStorage, jsonFileStore, type FileStorageOptions, type Storage } from './storage/storage.js';
export { configuredStorage, storeIsShared } from './storage/configured-storage.js';
export { sharedStore, type SharedStoreOptions } from './storage/shared-store.js';
export type { DirectoryStore } from './storage/directory-store.js';
export { listenOnHosts, type Bound, type HostBinder } from './startup/listen-on-hosts.js';
export { unixSocketPath } from './config/listen-host.js';
export { startWebui, type StartedWebui } from './startup/start-webui.js';
export { stopOnSignals, type ProcessControl, type StoppableServer } from './startup/stop-on-signals.js';
export { runPortableServer, type PortableRuntime } from './portable-server.js';
export type { PemPair } from './portable-tls.js';
export {
  composeWebui,
  configuredStorageFactory,
  memoryStorageFactory,
  type ComposedWebui,
  type RuntimeParts,
  type StorageFactory,
} from './compose-webui.js';
export type { ExtensionContext, ExtensionsSource, WebuiExtensions } from './webui-extensions.js';
export { StartupError } from './startup/startup-error.js';
export { WebuiMetrics, type MetricsScrape, type MetricsSources } from './metrics/webui-metrics.js';
export { listenForMetrics, type ListenWith } from './metrics/metrics-port.js';
export { weakTokenAdvice } from './startup/weak-token-warning.js';
export { systemClock, systemRandom } from './startup/system-ports.js';
export { secretKeyFingerprint } from './startup/secret-key-fingerprint.js';
export { originOf, toCidr } from './http/http-policy.js';
export {
  checkTlsPair,
  describeTlsSettings,
  HSTS_VALUE,
  loadTlsPair,
  openTls,
  TlsPairError,
  type TlsPair,
  type TlsReloadOutcome,
  type TlsReloadTrigger,
  type TlsService,
  type TlsSettings,
} from './tls/index.js';
export { banPolicyFrom } from './http/ban-settings.js';
// What a bot mounts (issue 34), from the one package it imports: route groups, channel domains, plugin progress.
export {
  ChannelCallError,
  ChannelDomain,
  channelCall,
  IDLE_PROGRESS,
  MountError,
  PluginProgressBoard,
  RouteGroup,
  type AuditDetails,
  type ChannelCall,
  type ChannelCallContext,
  type ChannelDomainOptions,
  type ChannelDomainPort,
  type ChannelScope,
  type PluginProgress,
  type RouteHandler,
  type RouteOptions,
  type RouteRequest,
  type RouteScope,
} from '@webui/http-hono';
// The runtimes' sockets enforce the hub's message cap too, and measure what a socket holds unsent for its send cap.
export { MAX_MESSAGE_BYTES, type BufferedBytes } from '@webui/http-hono';
// The operator's tools (the control socket, the CLI) answer in the HTTP API's key and ban entry shapes.
export { apiKeyJson, banEntryJson, schemas, type ApiKeyJson, type BanEntryJson } from '@webui/http-hono';
