import {
  resolveUpstream,
  describeUpstream,
  upstreamUrlSchema,
  UpstreamSettingError,
  type ResolvedUpstream,
  type UpstreamLayers,
} from '@webui/gateway';
import { describeReceived } from '@webui/http-hono';
import { redactStoreUrl } from '@webui/store-redis';
import { isAbsolute, relative, resolve } from 'node:path';
import { readConfigFile, readWebuiTable, type FileSettings } from './config-file.js';
import { parseConfigFlags, readTextSetting } from './config-flags.js';
import { hostListSchema, logFormatSchema, portTextSchema, storeSchema } from './setting-schemas.js';
import {
  ConfigError,
  defaultConfigPath,
  defaultDataDir,
  defaultSettings,
  settingFileKeys,
  settingNames,
  type LoadedSettings,
  type SettingName,
  type SettingSource,
  type WebuiSettings,
} from './settings.js';
import { describeTlsSettings } from '../tls/describe-tls.js';
import { resolveTls } from '../tls/tls-settings.js';

export interface LoadSettingsInput {
  /** Arguments after the script; words that are not configuration flags are ignored here. */
  argv: string[];
  /** The environment, or a way to read one variable of it: webui.upstream.headers may name any variable. */
  env: Record<string, string | undefined> | ((name: string) => string | undefined);
  cwd: string;
}

type Layer = readonly [SettingSource, Partial<Pick<WebuiSettings, SettingName>>];

/**
 * Every WEBUI_* variable the settings read: a runtime that scopes the environment grants these, and those that
 * webui.upstream.headers names with ${NAME}.
 */
export const SETTING_VARIABLES = [
  'WEBUI_CONFIG',
  'WEBUI_DATA_DIR',
  'WEBUI_HOST',
  'WEBUI_PORT',
  'WEBUI_STORE',
  'WEBUI_UPSTREAM_URL',
  'WEBUI_LOG_FORMAT',
  'WEBUI_TLS_CERT',
  'WEBUI_TLS_KEY',
] as const;
type SettingVariable = (typeof SETTING_VARIABLES)[number];

/** Merges flags over environment over config file over defaults; throws ConfigError on the first mistake. */
export function loadSettings(input: LoadSettingsInput): LoadedSettings {
  const { flags } = parseConfigFlags(input.argv);
  const source = input.env;
  const readEnv = typeof source === 'function' ? source : (name: string): string | undefined => source[name];
  const env = (name: SettingVariable): string | undefined => (readEnv(name) === '' ? undefined : readEnv(name));

  const config = pickPath(flags.config, env('WEBUI_CONFIG'), defaultConfigPath);
  const dataDir = pickPath(flags.dataDir, env('WEBUI_DATA_DIR'), defaultDataDir);
  const configPath = resolve(input.cwd, config.value);
  const fileLabel = labelOf(configPath, input.cwd);

  const file = readConfigFile(configPath, fileLabel);
  if (!file.found && config.source !== 'default') {
    const origin = config.source === 'flag' ? '--config' : 'WEBUI_CONFIG';
    throw new ConfigError(`${origin}: config file ${fileLabel} does not exist`);
  }

  const flagLayer: Layer = [
    'flag',
    {
      host: readTextSetting(hostListSchema, flags.host, '--host'),
      port: readTextSetting(portTextSchema, flags.port, '--port'),
      store: readTextSetting(storeSchema, flags.store, '--store'),
    },
  ];
  const flagUrl = readTextSetting(upstreamUrlSchema, flags.upstreamUrl, '--upstream-url');
  const envLayer: Layer = [
    'env',
    {
      host: readTextSetting(hostListSchema, env('WEBUI_HOST'), 'WEBUI_HOST'),
      port: readTextSetting(portTextSchema, env('WEBUI_PORT'), 'WEBUI_PORT'),
      store: readTextSetting(storeSchema, env('WEBUI_STORE'), 'WEBUI_STORE'),
      logFormat: readTextSetting(logFormatSchema, env('WEBUI_LOG_FORMAT'), 'WEBUI_LOG_FORMAT'),
    },
  ];
  const envUrl = readTextSetting(upstreamUrlSchema, env('WEBUI_UPSTREAM_URL'), 'WEBUI_UPSTREAM_URL');
  const fileSettings: FileSettings = file.found ? readWebuiTable(file.document, fileLabel) : {};
  const layers: Layer[] = [flagLayer, envLayer, ['file', fileSettings]];
  const upstream = upstreamOf({ flagUrl, envUrl, table: fileSettings.upstream, fileLabel, readEnv });
  const absoluteDataDir = resolve(input.cwd, dataDir.value);
  const tls = resolveTls({
    flag: { cert: flags.tlsCert, key: flags.tlsKey },
    env: { cert: env('WEBUI_TLS_CERT'), key: env('WEBUI_TLS_KEY') },
    table: fileSettings.tls,
    fileLabel,
    cwd: input.cwd,
    dataDir: absoluteDataDir,
  });

  const settings: WebuiSettings = { ...defaultSettings };
  // Completed for every setting by the loop just below.
  const sources = { configPath: config.source, dataDir: dataDir.source } as LoadedSettings['sources'];
  for (const name of settingNames) sources[name] = applyFirstGiven(name, layers, settings);
  if (upstream !== undefined) {
    settings.upstream = upstream.upstream;
    Object.assign(sources, upstream.sources);
  }
  if (tls !== undefined) {
    settings.tls = tls.tls;
    Object.assign(sources, tls.sources);
  }

  return { settings, dataDir: absoluteDataDir, configPath, configFileFound: file.found, sources };
}

/** The gateway's table resolved; its mistakes are configuration mistakes like any other. */
function upstreamOf(layers: UpstreamLayers): ResolvedUpstream | undefined {
  try {
    return resolveUpstream(layers);
  } catch (error) {
    throw error instanceof UpstreamSettingError ? new ConfigError(error.message) : error;
  }
}

function pickPath(flag: string | undefined, env: string | undefined, fallback: string): { value: string; source: SettingSource } {
  if (flag !== undefined) return { value: flag, source: 'flag' };
  if (env !== undefined) return { value: env, source: 'env' };
  return { value: fallback, source: 'default' };
}

// Generic over the name so the value keeps the type of its own setting.
function applyFirstGiven<K extends SettingName>(name: K, layers: readonly Layer[], settings: WebuiSettings): SettingSource {
  for (const [source, values] of layers) {
    const value = values[name];
    if (value !== undefined) {
      settings[name] = value;
      return source;
    }
  }
  return 'default';
}

// Messages show the path as the operator knows it: relative inside the working directory.
function labelOf(path: string, cwd: string): string {
  const fromCwd = relative(cwd, path);
  return fromCwd !== '' && !fromCwd.startsWith('..') && !isAbsolute(fromCwd) ? fromCwd : path;
}

/** One line per setting with its effective value and where it came from, for `webui config check`. */
export function describeSettings(loaded: LoadedSettings): string[] {
  const { sources } = loaded;
  const lines = [
    `config = ${loaded.configPath} (${sources.configPath}, ${loaded.configFileFound ? 'found' : 'not found'})`,
    `data_dir = ${loaded.dataDir} (${sources.dataDir})`,
  ];
  for (const name of settingNames) {
    lines.push(`webui.${settingFileKeys[name]} = ${formatValue(name, loaded)} (${sources[name]})`);
  }
  lines.push(...describeTlsSettings(loaded));
  // Without an upstream nothing is shown, as nothing changes.
  const { upstream } = loaded.settings;
  if (upstream !== undefined) lines.push(...describeUpstream(upstream, sources));
  return lines;
}

function formatValue(name: SettingName, loaded: LoadedSettings): string {
  const value = loaded.settings[name];
  // The secret itself is never printed: a check output is often pasted into bug reports.
  if (name === 'secretKey') return value === undefined ? '(not set)' : '(set)';
  if (name === 'store') return JSON.stringify(redactStoreUrl(loaded.settings.store));
  if (value === undefined) return '(not set)';
  if (Array.isArray(value)) return describeReceived(value);
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
