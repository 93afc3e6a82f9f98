import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import * as v from 'valibot';
import { errorCode } from '@webui/core/adapter';
import { upstreamTableSchema, type UpstreamTable } from '@webui/gateway';
import { describeReceived } from '@webui/http-hono';
import {
  allowedHostListSchema,
  auditKeepSchema,
  auditMaxBytesSchema,
  booleanSchema,
  globalFailureBudgetSchema,
  maxConnectionsPerClientSchema,
  hostListSchema,
  logFormatSchema,
  logLevelSchema,
  metricsPortSchema,
  modeSchema,
  networkListSchema,
  originListSchema,
  portSchema,
  secretKeySchema,
  sessionExpireSchema,
  storePrefixSchema,
  storeSchema,
  trustedProxyListSchema,
} from './setting-schemas.js';
import { ConfigError, type SettingName, type WebuiSettings } from './settings.js';
import { tlsTableSchema, type TlsTable } from '../tls/tls-table.js';

export type ConfigFile = { found: true; document: Record<string, unknown> } | { found: false };

/** Reads and parses the TOML config file; a missing file is reported as not found, never thrown. */
export function readConfigFile(path: string, label: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { found: false };
    throw new ConfigError(`${label}: cannot read config file (${errorCode(error) ?? String(error)})`);
  }
  try {
    return { found: true, document: parse(text) };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // Only the first line of the reason: the code excerpt below it could show a secret.
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    throw new ConfigError(`${label}: invalid TOML at line ${error.line}, column ${error.column}: ${reason}`);
  }
}

/** The [webui] table as the config file holds it; its entries are the schemas the configuration reference is generated from. */
export const webuiTableSchema = v.pipe(
  v.strictObject(
    {
      enabled: v.optional(booleanSchema),
      host: v.optional(hostListSchema),
      port: v.optional(portSchema),
      secure_cookie: v.optional(booleanSchema),
      trusted_proxies: v.optional(trustedProxyListSchema),
      allowed_ips: v.optional(networkListSchema),
      secret_key: v.optional(secretKeySchema),
      session_expire: v.optional(sessionExpireSchema),
      mode: v.optional(modeSchema),
      allowed_origins: v.optional(originListSchema),
      allowed_hosts: v.optional(allowedHostListSchema),
      log_level: v.optional(logLevelSchema),
      log_format: v.optional(logFormatSchema),
      ban_exempt: v.optional(networkListSchema),
      global_failure_budget: v.optional(globalFailureBudgetSchema),
      max_connections_per_client: v.optional(maxConnectionsPerClientSchema),
      audit_max_bytes: v.optional(auditMaxBytesSchema),
      audit_keep: v.optional(auditKeepSchema),
      store: v.optional(storeSchema),
      store_prefix: v.optional(storePrefixSchema),
      metrics_port: v.optional(metricsPortSchema),
      upstream: v.optional(upstreamTableSchema),
      tls: v.optional(tlsTableSchema),
    },
    (issue) =>
      issue.expected === 'never'
        ? `unknown key webui.${String(issue.input)}`
        : `webui must be a table, got ${describeReceived(issue.input)}`,
  ),
  v.transform((table): FileSettings => ({
    enabled: table.enabled,
    host: table.host,
    port: table.port,
    secureCookie: table.secure_cookie,
    trustedProxies: table.trusted_proxies,
    allowedIps: table.allowed_ips,
    secretKey: table.secret_key,
    sessionExpireDays: table.session_expire,
    mode: table.mode,
    allowedOrigins: table.allowed_origins,
    allowedHosts: table.allowed_hosts,
    logLevel: table.log_level,
    logFormat: table.log_format,
    banExempt: table.ban_exempt,
    globalFailureBudget: table.global_failure_budget,
    maxConnectionsPerClient: table.max_connections_per_client,
    auditMaxBytes: table.audit_max_bytes,
    auditKeep: table.audit_keep,
    store: table.store,
    storePrefix: table.store_prefix,
    metricsPort: table.metrics_port,
    upstream: table.upstream,
    tls: table.tls,
  })),
);

/** What the [webui] table gives: the plain settings, and [webui.upstream] as written (its headers are expanded at load). */
export type FileSettings = Partial<Pick<WebuiSettings, SettingName>> & { upstream?: UpstreamTable; tls?: TlsTable };

/** The settings a parsed config file gives in its [webui] table; other tables belong to the bot and are ignored. */
export function readWebuiTable(document: Record<string, unknown>, fileLabel: string): FileSettings {
  if (!Object.hasOwn(document, 'webui')) return {};
  const result = v.safeParse(webuiTableSchema, document['webui'], { abortEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  // Value issues carry only "must be ..."; the key is added here, where the path is known. A key's own issue names it already.
  const keyIssue = issue.path?.some((item) => item.origin === 'key') ?? false;
  const key = keyIssue ? '' : keyPathOf(issue.path ?? []);
  throw new ConfigError(`${fileLabel}: ${key === '' ? issue.message : `webui.${key} ${issue.message}`}`);
}

// Table keys down to the first list index: an entry's message quotes the entry itself.
function keyPathOf(path: readonly v.IssuePathItem[]): string {
  const keys: string[] = [];
  for (const item of path) {
    if (typeof item.key !== 'string') break;
    keys.push(item.key);
  }
  return keys.join('.');
}
