import { describe, expect, it } from 'vitest';
import { parseConfigFlags } from './config-flags.js';
import { loadSettings, SETTING_VARIABLES } from './load-settings.js';
import { SETTING_LOCATIONS, settingReference } from './setting-docs.js';
import { upstreamFileKeys } from '@webui/gateway';
import { settingFileKeys } from './settings.js';
import { tlsFileKeys } from '../tls/tls-settings.js';

// The notes name the variable and flag of each key; these tests hold them to what loadSettings really reads.
const SAMPLES: Record<string, string> = {
  host: '127.0.0.1',
  port: '9000',
  store: 'file',
  log_format: 'json',
  'upstream.url': 'http://127.0.0.1:8002',
  'tls.cert': 'cert.pem',
  'tls.key': 'key.pem',
};
// A key that is refused alone, with the variable and flag of its partner.
const PARTNERS: Record<string, { env: string; flag: string; value: string }> = {
  'tls.cert': { env: 'WEBUI_TLS_KEY', flag: '--tls-key', value: 'key.pem' },
  'tls.key': { env: 'WEBUI_TLS_CERT', flag: '--tls-cert', value: 'cert.pem' },
};
const CWD = '/nonexistent-webui-setting-docs';

/** The loadSettings name a documented key is reported under in `sources`. */
function sourceName(key: string): string {
  const all: Record<string, string> = {
    ...Object.fromEntries(Object.entries(settingFileKeys).map(([name, file]) => [file, name])),
    ...Object.fromEntries(Object.entries(upstreamFileKeys).map(([name, file]) => [file, name])),
    ...Object.fromEntries(Object.entries(tlsFileKeys).map(([name, file]) => [file, name])),
  };
  const name = all[key];
  if (name === undefined) throw new Error(`no setting for ${key}`);
  return name;
}

describe('settingReference', () => {
  const rows = settingReference();

  it('documents every key of [webui], [webui.upstream] and [webui.tls] once', () => {
    const keys = rows.map((row) => row.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(
      [...Object.values(settingFileKeys), ...Object.values(upstreamFileKeys), ...Object.values(tlsFileKeys)].sort(),
    );
  });

  it('reads type, range and default from the schemas and defaults', () => {
    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    expect(byKey['port']).toMatchObject({ type: 'integer', range: '0 to 65535', default: '8001' });
    expect(byKey['session_expire']).toMatchObject({ type: 'integer', range: '1 to 365', default: '7' });
    expect(byKey['host']).toMatchObject({ type: 'list of strings', range: 'at least 1 entry', default: '["127.0.0.1", "::1"]' });
    expect(byKey['mode']).toMatchObject({ type: 'string', range: 'one of `production`, `development`', default: '"production"' });
    expect(byKey['secret_key']).toMatchObject({ type: 'string', default: 'unset' });
    expect(byKey['upstream.headers']).toMatchObject({ type: 'table of strings', default: '{}' });
  });

  it.each(rows.filter((row) => row.env !== undefined).map((row) => [row.key, row.env as string]))('%s: %s sets it', (key, env) => {
    const sample = SAMPLES[key];
    if (sample === undefined) throw new Error(`add a sample value of ${key} to SAMPLES`);
    const partner = PARTNERS[key];
    const loaded = loadSettings({ argv: [], env: { [env]: sample, ...(partner ? { [partner.env]: partner.value } : {}) }, cwd: CWD });
    expect(loaded.sources[sourceName(key) as keyof typeof loaded.sources]).toBe('env');
  });

  it.each(rows.filter((row) => row.flag !== undefined).map((row) => [row.key, row.flag as string]))('%s: %s sets it', (key, flag) => {
    const sample = SAMPLES[key];
    if (sample === undefined) throw new Error(`add a sample value of ${key} to SAMPLES`);
    const partner = PARTNERS[key];
    const loaded = loadSettings({ argv: [flag, sample, ...(partner ? [partner.flag, partner.value] : [])], env: {}, cwd: CWD });
    expect(loaded.sources[sourceName(key) as keyof typeof loaded.sources]).toBe('flag');
  });

  it('names every variable loadSettings reads, and only those', () => {
    const documented = [...rows.flatMap((row) => (row.env ? [row.env] : [])), ...SETTING_LOCATIONS.map((location) => location.env)];
    expect(documented.sort()).toEqual([...SETTING_VARIABLES].sort());
  });

  it('names flags the settings take', () => {
    const documented = [...rows.flatMap((row) => (row.flag ? [row.flag] : [])), ...SETTING_LOCATIONS.map((location) => location.flag)];
    for (const flag of documented) expect(parseConfigFlags([flag, 'x']).rest).toEqual([]);
    expect(documented).toHaveLength(8);
  });
});
