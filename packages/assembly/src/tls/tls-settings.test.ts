import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSettings, loadSettings } from '../config/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'webui-tls-settings-'));

function load(table: string, env: Record<string, string> = {}, argv: string[] = []) {
  writeFileSync(join(cwd, 'webui.toml'), `[webui.tls]\n${table}\n`);
  return loadSettings({ argv: ['--config', 'webui.toml', ...argv], env, cwd });
}

describe('[webui.tls]', () => {
  it('is plain HTTP when nothing is given', () => {
    expect(loadSettings({ argv: [], env: {}, cwd }).settings.tls).toBeUndefined();
  });

  it('resolves paths against the working directory, cert and key by flag > env > file', () => {
    const loaded = load('cert = "file.pem"\nkey = "file.key"\nhsts = true', { WEBUI_TLS_CERT: 'env.pem', WEBUI_TLS_KEY: 'env.key' }, [
      '--tls-cert',
      'flag.pem',
    ]);
    expect(loaded.settings.tls).toEqual({ selfSigned: false, cert: join(cwd, 'flag.pem'), key: join(cwd, 'env.key'), hsts: true });
    expect(loaded.sources).toMatchObject({ tlsCert: 'flag', tlsKey: 'env', tlsHsts: 'file', tlsSelfSigned: 'default' });
    expect(describeSettings(loaded)).toContain(`webui.tls.cert = ${JSON.stringify(join(cwd, 'flag.pem'))} (flag)`);
  });

  it('puts a self-signed pair in <data>/tls/', () => {
    expect(load('self_signed = true').settings.tls).toEqual({
      selfSigned: true,
      cert: join(cwd, 'data', 'tls', 'cert.pem'),
      key: join(cwd, 'data', 'tls', 'key.pem'),
      hsts: false,
    });
  });

  it.each([
    ['cert = "a.pem"', 'webui.toml: webui.tls.cert is given without a key'],
    ['key = "a.key"', 'webui.toml: webui.tls.key is given without a certificate'],
    ['self_signed = true\ncert = "a.pem"\nkey = "a.key"', 'webui.tls.self_signed = true and a certificate'],
    ['self_signed = true\nhsts = true', 'webui.toml: webui.tls.hsts cannot be used with self_signed: a browser that saw the header'],
    ['hsts = true', 'webui.toml: [webui.tls] needs webui.tls.cert and webui.tls.key'],
    ['certificate = "a.pem"', 'webui.toml: unknown key webui.tls.certificate'],
    ['self_signed = "yes"', 'webui.toml: webui.tls.self_signed must be true or false'],
  ])('refuses %j in one line', (table, message) => {
    expect(() => load(table)).toThrow(message);
  });

  it('refuses a variable given alone, naming it', () => {
    expect(() => loadSettings({ argv: [], env: { WEBUI_TLS_CERT: 'a.pem' }, cwd })).toThrow('WEBUI_TLS_CERT is given without a key');
  });
});
