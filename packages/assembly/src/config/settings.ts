import type { UpstreamSettingName, UpstreamSettings } from '@webui/gateway';
import type { SettingSource } from '@webui/http-hono';
import type { TlsSettingName, TlsSettings } from '../tls/tls-settings.js';

export type { SettingSource };

/** The [webui] settings of the server, after defaults, file, environment and flags are merged. */
export interface WebuiSettings {
  enabled: boolean;
  host: string[];
  // 0 asks the system for any free port, which tests use.
  port: number;
  secureCookie: boolean;
  trustedProxies: string[];
  allowedIps: string[];
  secretKey: string | undefined;
  sessionExpireDays: number;
  mode: 'production' | 'development';
  allowedOrigins: string[];
  allowedHosts: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** How log lines are written: "auto" is readable on a terminal and JSON lines anywhere else. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Networks never banned; their failures are still logged. */
  banExempt: string[];
  /** Failed verifications per hour across all addresses before new clients are slowed down; 0 turns it off. */
  globalFailureBudget: number;
  /** TCP connections one client address (an IPv6 /64) may hold open at once; a trusted proxy's are not counted. */
  maxConnectionsPerClient: number;
  /** data/audit.log is rotated before a line would take it past this many bytes. */
  auditMaxBytes: number;
  /** Rotated audit files kept (audit.log.1 ... audit.log.N); older ones are deleted. */
  auditKeep: number;
  /** Where the state lives: "file" (data_dir/webui.json), or a redis:// or redis-cluster:// URL shared by several instances. */
  store: string;
  /** Prefix of every key and channel in a shared store. */
  storePrefix: string;
  /** A loopback port answering GET /metrics without a credential, for a Prometheus on this machine; undefined: none. */
  metricsPort: number | undefined;
  /** The bot's own backend behind this server (`[webui.upstream]`, WEBUI_UPSTREAM_URL, --upstream-url); undefined: none. */
  upstream: UpstreamSettings | undefined;
  /** HTTPS on every TCP listener (`[webui.tls]`, WEBUI_TLS_CERT/WEBUI_TLS_KEY, --tls-cert/--tls-key); undefined: plain HTTP. */
  tls: TlsSettings | undefined;
}

/** The settings merged flag > env > file > default, one value each; the upstream and TLS are tables of their own. */
export type SettingName = Exclude<keyof WebuiSettings, 'upstream' | 'tls'>;

export interface LoadedSettings {
  settings: WebuiSettings;
  /** Absolute. */
  dataDir: string;
  /** Absolute, whether or not the file exists. */
  configPath: string;
  configFileFound: boolean;
  // The upstream's and TLS's keys are there only when they are configured.
  sources: Record<SettingName | 'dataDir' | 'configPath', SettingSource> &
    Partial<Record<UpstreamSettingName | TlsSettingName, SettingSource>>;
}

/** A configuration mistake, told in one line that names the key and where it was given. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The key each setting has inside the [webui] table of the config file. */
export const settingFileKeys = {
  enabled: 'enabled',
  host: 'host',
  port: 'port',
  secureCookie: 'secure_cookie',
  trustedProxies: 'trusted_proxies',
  allowedIps: 'allowed_ips',
  secretKey: 'secret_key',
  sessionExpireDays: 'session_expire',
  mode: 'mode',
  allowedOrigins: 'allowed_origins',
  allowedHosts: 'allowed_hosts',
  logLevel: 'log_level',
  logFormat: 'log_format',
  banExempt: 'ban_exempt',
  globalFailureBudget: 'global_failure_budget',
  maxConnectionsPerClient: 'max_connections_per_client',
  auditMaxBytes: 'audit_max_bytes',
  auditKeep: 'audit_keep',
  store: 'store',
  storePrefix: 'store_prefix',
  metricsPort: 'metrics_port',
} as const satisfies Record<SettingName, string>;

// Object.keys loses the key type; the satisfies above guarantees every setting is listed.
export const settingNames = Object.keys(settingFileKeys) as SettingName[];

export const defaultSettings: Readonly<WebuiSettings> = Object.freeze({
  enabled: true,
  host: ['127.0.0.1', '::1'],
  port: 8001,
  secureCookie: false,
  trustedProxies: [],
  allowedIps: [],
  secretKey: undefined,
  sessionExpireDays: 7,
  mode: 'production',
  allowedOrigins: [],
  allowedHosts: [],
  logLevel: 'info',
  logFormat: 'auto',
  banExempt: [],
  globalFailureBudget: 100,
  maxConnectionsPerClient: 512,
  auditMaxBytes: 10 * 1024 * 1024,
  auditKeep: 5,
  store: 'file',
  storePrefix: 'webui:',
  metricsPort: undefined,
  upstream: undefined,
  tls: undefined,
});

export const defaultConfigPath = 'config/bot_config.toml';
export const defaultDataDir = './data';
