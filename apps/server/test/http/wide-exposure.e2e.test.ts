import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import {
  cleanupServers,
  eventually,
  makeTempDir,
  runServerToExit,
  SERVER_BUNDLE,
  startServer,
  type LogLine,
  type ServerProcess,
} from '../harness/processes/server-process.js';

afterAll(cleanupServers);

const WARN = 40;
const WIDE_PROXY_LOG =
  'webui.trusted_proxies covers more than a /24 (IPv4) or /48 (IPv6): anyone in it can set the X-Forwarded-For address they are ' +
  'counted under';
const wideProxyBannerLine = (entry: string) => `webui.trusted_proxies ${entry} is wider than a /24 (IPv4) or /48 (IPv6)`;
const HOST_CHECK_OFF_LOG = 'the Host (DNS-rebinding) check is off: webui.host listens beyond loopback and webui.allowed_hosts is empty';

const bannerOf = async (server: ServerProcess): Promise<string> => {
  await eventually(() => server.stderr().includes('login URL'), 5_000, 'banner on stderr');
  return server.stderr();
};

describe('webui.trusted_proxies wider than a /24 or /48 (issue 31, item 3)', () => {
  it('is warned about in the startup banner and in one log line naming the wide entries', async () => {
    const server = await startServer({ config: '[webui]\ntrusted_proxies = ["127.0.0.1", "10.0.0.0/8", "192.168.1.0/24", "fd00::/47"]\n' });
    const banner = await bannerOf(server);
    expect(banner).toContain(wideProxyBannerLine('10.0.0.0/8'));
    expect(banner).toContain(wideProxyBannerLine('fd00::/47'));
    expect(banner).not.toContain(wideProxyBannerLine('192.168.1.0/24'));
    expect(banner).not.toContain(wideProxyBannerLine('127.0.0.1'));
    const warnings = server.logs().filter((line: LogLine) => line.msg === WIDE_PROXY_LOG);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: WARN, trustedProxies: ['10.0.0.0/8', 'fd00::/47'] });
  });

  it('entries no wider than a /24 or /48 print no warning', async () => {
    const server = await startServer({ config: '[webui]\ntrusted_proxies = ["127.0.0.1", "192.168.1.0/24", "fd00:1:2::/48"]\n' });
    expect(await bannerOf(server)).not.toContain('webui.trusted_proxies');
    expect(server.logs().some((line) => line.msg === WIDE_PROXY_LOG)).toBe(false);
  });

  it.each(['0.0.0.0/0', '::/0'])('trusted_proxies = ["%s"] stops the start with one line naming the key and the file', async (entry) => {
    const run = await runServerToExit({ config: `[webui]\ntrusted_proxies = ["${entry}"]\n` });
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`config/bot_config.toml: webui.trusted_proxies entry "${entry}" trusts more than any network of proxies`);
    expect(run.logs.some((line) => line.msg === 'WebUI API listening')).toBe(false);
  });

  it('`webui config check` exits non-zero for trusted_proxies = ["0.0.0.0/0"]', () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), '[webui]\ntrusted_proxies = ["0.0.0.0/0"]\n');
    const run = spawnSync(process.execPath, [SERVER_BUNDLE, 'config', 'check'], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('webui.trusted_proxies entry "0.0.0.0/0"');
    expect(run.stdout).not.toContain('configuration is valid');
  });
});

/** The machine's addresses a browser can use, as the test sees them (link-local IPv6 needs a zone, so it is left out). */
function machineAddresses(family: 'IPv4' | 'IPv6'): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === family && !(family === 'IPv6' && entry.address.toLowerCase().startsWith('fe80:')))
    .map((entry) => entry.address);
}

describe('host = "0.0.0.0" (issue 31, item 6)', () => {
  it("the banner lists the machine's own addresses, never 0.0.0.0, and one warning says the Host check is off", async () => {
    const server = await startServer({ args: ['--host', '0.0.0.0'] });
    const banner = await bannerOf(server);
    expect(banner).not.toContain('0.0.0.0');
    const ipv4 = machineAddresses('IPv4');
    expect(ipv4.length).toBeGreaterThan(0);
    for (const address of ipv4) expect(banner).toContain(`http://${address}:${server.port}/api/webui`);
    const loginUrl = /login URL\s+(\S+)/.exec(banner)?.[1] ?? '';
    expect(loginUrl).not.toContain('0.0.0.0');
    expect(loginUrl).toMatch(new RegExp(`^http://[^/]+:${server.port}/\\?token=`));
    expect(banner.match(/Host \(DNS-rebinding\) check is off/g)).toHaveLength(1);
    const warnings = server.logs().filter((line) => typeof line.msg === 'string' && line.msg.startsWith(HOST_CHECK_OFF_LOG));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: WARN, hosts: ['0.0.0.0'] });
    // What the warning says: any Host is served.
    expect((await new HttpClient(server.baseUrl).get('/health', { headers: { host: 'rebound.example' } })).status).toBe(200);
  });

  it('host = "::": the banner lists the addresses of both families, never ::', async () => {
    const server = await startServer({ args: ['--host', '::'] });
    const banner = await bannerOf(server);
    expect(banner).not.toMatch(/http:\/\/\[::\]/);
    for (const address of [...machineAddresses('IPv4'), ...machineAddresses('IPv6')]) {
      expect(banner).toContain(
        address.includes(':') ? `http://[${address}]:${server.port}/api/webui` : `http://${address}:${server.port}/api/webui`,
      );
    }
  });

  it('with allowed_hosts set, the banner lists those names, no warning is printed, and the Host check is on', async () => {
    const server = await startServer({
      args: ['--host', '0.0.0.0'],
      config: '[webui]\nallowed_hosts = ["bot.example.com", "panel.example.com:9443"]\n',
    });
    const banner = await bannerOf(server);
    expect(banner).not.toContain('0.0.0.0');
    expect(banner).toContain(`http://bot.example.com:${server.port}/api/webui`);
    expect(banner).toContain('http://panel.example.com:9443/api/webui');
    expect(banner).not.toContain('DNS-rebinding');
    expect(server.logs().some((line) => typeof line.msg === 'string' && line.msg.startsWith(HOST_CHECK_OFF_LOG))).toBe(false);
    const client = new HttpClient(server.baseUrl);
    expectErrorBody(await client.get('/health', { headers: { host: 'rebound.example' } }), 403, 'host_not_allowed');
    expect((await client.get('/health', { headers: { host: 'bot.example.com' } })).status).toBe(200);
    expect((await client.get('/health')).status).toBe(200);
  });
});
