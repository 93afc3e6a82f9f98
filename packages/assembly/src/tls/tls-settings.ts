import { join, resolve } from 'node:path';
import { ConfigError, type SettingSource } from '../config/settings.js';
import type { TlsTable } from './tls-table.js';

/** `[webui.tls]` after the layers are merged: undefined in WebuiSettings.tls means plain HTTP. */
export interface TlsSettings {
  /** The pair is made by the server in `<data>/tls/`. */
  selfSigned: boolean;
  /** Absolute path of the certificate (leaf first, then any chain). */
  cert: string;
  /** Absolute path of the private key. */
  key: string;
  /** Send Strict-Transport-Security. */
  hsts: boolean;
}

/** The keys of [webui.tls], each with its source in LoadedSettings.sources when TLS is configured. */
export const tlsFileKeys = {
  tlsCert: 'tls.cert',
  tlsKey: 'tls.key',
  tlsSelfSigned: 'tls.self_signed',
  tlsHsts: 'tls.hsts',
} as const;

export type TlsSettingName = keyof typeof tlsFileKeys;

/** Where a self-signed pair lives under the data directory. */
export const SELF_SIGNED_DIR = 'tls';
export const SELF_SIGNED_CERT = 'cert.pem';
export const SELF_SIGNED_KEY = 'key.pem';

export interface TlsLayers {
  flag: { cert: string | undefined; key: string | undefined };
  env: { cert: string | undefined; key: string | undefined };
  table: TlsTable | undefined;
  fileLabel: string;
  cwd: string;
  dataDir: string;
}

export interface ResolvedTls {
  tls: TlsSettings;
  sources: Record<TlsSettingName, SettingSource>;
}

/** cert and key each by flag > env > file; self_signed and hsts from the file. Undefined without any of them. */
export function resolveTls(layers: TlsLayers): ResolvedTls | undefined {
  const { table, fileLabel } = layers;
  const [certSource, cert] = pick(layers, 'cert');
  const [keySource, key] = pick(layers, 'key');
  const selfSigned = table?.self_signed ?? false;
  const hsts = table?.hsts ?? false;
  const where = (source: SettingSource, name: 'cert' | 'key'): string => {
    if (source === 'flag') return `--tls-${name}`;
    if (source === 'env') return `WEBUI_TLS_${name.toUpperCase()}`;
    return `${fileLabel}: webui.tls.${name}`;
  };
  if (cert !== undefined && key === undefined)
    throw new ConfigError(`${where(certSource, 'cert')} is given without a key: set webui.tls.key (or WEBUI_TLS_KEY, --tls-key) too`);
  if (key !== undefined && cert === undefined)
    throw new ConfigError(
      `${where(keySource, 'key')} is given without a certificate: set webui.tls.cert (or WEBUI_TLS_CERT, --tls-cert) too`,
    );
  if (selfSigned && cert !== undefined)
    throw new ConfigError(
      `${fileLabel}: webui.tls.self_signed = true and a certificate (${where(certSource, 'cert')}) are both given: choose one`,
    );
  if (selfSigned && hsts)
    throw new ConfigError(
      `${fileLabel}: webui.tls.hsts cannot be used with self_signed: a browser that saw the header would refuse the site, ` +
        'without the choice to accept its certificate, until the header expires',
    );
  if (cert === undefined && !selfSigned) {
    if (table === undefined) return undefined;
    throw new ConfigError(
      `${fileLabel}: [webui.tls] needs webui.tls.cert and webui.tls.key (or WEBUI_TLS_CERT, WEBUI_TLS_KEY), or self_signed = true`,
    );
  }
  const fromFile = (given: unknown): SettingSource => (given === undefined ? 'default' : 'file');
  const selfDir = join(layers.dataDir, SELF_SIGNED_DIR);
  const tls: TlsSettings = {
    selfSigned,
    cert: cert === undefined ? join(selfDir, SELF_SIGNED_CERT) : resolve(layers.cwd, cert),
    key: key === undefined ? join(selfDir, SELF_SIGNED_KEY) : resolve(layers.cwd, key),
    hsts,
  };
  const sources = {
    tlsCert: cert === undefined ? 'default' : certSource,
    tlsKey: key === undefined ? 'default' : keySource,
    tlsSelfSigned: fromFile(table?.self_signed),
    tlsHsts: fromFile(table?.hsts),
  } satisfies Record<TlsSettingName, SettingSource>;
  return { tls, sources };
}

function pick(layers: TlsLayers, name: 'cert' | 'key'): [SettingSource, string | undefined] {
  if (layers.flag[name] !== undefined) return ['flag', layers.flag[name]];
  if (layers.env[name] !== undefined) return ['env', layers.env[name]];
  return ['file', layers.table?.[name]];
}
