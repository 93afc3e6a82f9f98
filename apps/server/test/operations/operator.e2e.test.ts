import { existsSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import {
  cleanupServers,
  eventually,
  freePort,
  makeTempDir,
  runServerToExit,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { HEX64, OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

afterAll(cleanupServers);

const LISTENING = 'WebUI API listening';
const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('startup decisions', () => {
  afterEach(cleanupServers);

  it('webui.enabled = false: says so and exits 0 without listening', async () => {
    const port = await freePort();
    const run = await runServerToExit({ config: '[webui]\nenabled = false\n', port });
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/webui\.enabled is false/);
    expect(run.logs.some((line) => line.msg === LISTENING)).toBe(false);
    expect(run.stderr).not.toContain('WebUI management API');
    expect(existsSync(join(run.cwd, 'data', 'webui.json'))).toBe(false);
  });

  it.each([
    ['an unknown key', '[webui]\nport = 0\ncolour = "blue"\n', 'webui.colour'],
    ['a port out of range', '[webui]\nport = 70000\n', 'webui.port'],
    ['a wrong type', '[webui]\nenabled = "yes"\n', 'webui.enabled'],
  ])('a config error (%s) exits 1 with one stderr line naming the key and the file, no listening', async (_name, config, key) => {
    const run = await runServerToExit({ config });
    expect(run.code).toBe(1);
    const lines = nonEmptyLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(key);
    expect(lines[0]).toContain('config/bot_config.toml');
    expect(run.logs.some((line) => line.msg === LISTENING)).toBe(false);
    expect(existsSync(join(run.cwd, 'data'))).toBe(false);
  });

  it('a port already in use exits 1 and stderr names the address', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const run = await runServerToExit({ port });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`127.0.0.1:${port}`);
      expect(run.stderr).toMatch(/in use/);
      expect(run.logs.some((line) => line.msg === LISTENING)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('port and data directory from flags and environment', () => {
  afterEach(cleanupServers);

  it('WEBUI_PORT is honoured', async () => {
    const port = await freePort();
    const server = await startServer({ port: null, env: { WEBUI_PORT: String(port) } });
    expect(server.port).toBe(port);
    expect((await new HttpClient(server.baseUrl).get('/health')).status).toBe(200);
  });

  it('--port is honoured and wins over WEBUI_PORT', async () => {
    const flagPort = await freePort();
    let envPort = await freePort();
    while (envPort === flagPort) envPort = await freePort();
    const server = await startServer({ port: null, args: ['--port', String(flagPort)], env: { WEBUI_PORT: String(envPort) } });
    expect(server.port).toBe(flagPort);
    expect(server.addresses).toContain(`http://127.0.0.1:${flagPort}`);
  });

  it('WEBUI_DATA_DIR puts webui.json elsewhere', async () => {
    const elsewhere = join(makeTempDir(), 'state');
    const server = await startServer({ env: { WEBUI_DATA_DIR: elsewhere } });
    expect(server.dataDir).toBe(elsewhere);
    expect(readWebuiFile(elsewhere).token_source).toBe('temporary');
    expect(existsSync(join(server.cwd, 'data'))).toBe(false);
  });

  it('--data-dir puts webui.json elsewhere and wins over WEBUI_DATA_DIR', async () => {
    const base = makeTempDir();
    const flagDir = join(base, 'from-flag');
    const envDir = join(base, 'from-env');
    const server = await startServer({ args: ['--data-dir', flagDir], env: { WEBUI_DATA_DIR: envDir } });
    expect(server.dataDir).toBe(flagDir);
    expect(existsSync(webuiFilePath(flagDir))).toBe(true);
    expect(existsSync(envDir)).toBe(false);
    expect(existsSync(join(server.cwd, 'data'))).toBe(false);
    // The token it serves is the one in that file.
    const token = readWebuiFile(flagDir).access_token;
    expect((await new HttpClient(server.baseUrl).post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });
});

describe('signals', () => {
  afterEach(cleanupServers);

  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops the server with exit 0 quickly, and the port is free again', async (signal) => {
    const server = await startServer();
    const started = Date.now();
    expect(await server.stop(signal)).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect(new HttpClient(server.baseUrl).get('/health')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('SIGTERM with an idle keep-alive connection open still exits 0 quickly', async () => {
    const server = await startServer();
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const answered = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
    socket.write(`GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: keep-alive\r\n\r\n`);
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    const started = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    socket.destroy();
  });
});

describe('what the log says, and what it never says', () => {
  let server: ServerProcess;
  const everything = () => `${server.stdout()}\n${server.stderr()}`;

  beforeAll(async () => {
    // trace: even the most talkative level must not carry a secret.
    server = await startServer({ config: '[webui]\nlog_level = "trace"\n' });
  });

  it('a failed login logs a line with the client ip', async () => {
    await new HttpClient(server.baseUrl, { localAddress: '127.0.0.7' }).post('/auth/verify', { body: { token: 'not-the-token' } });
    // info or above: at trace level every request has a debug line with its ip, which would prove nothing.
    const line = await server.waitForLog((entry) => entry['ip'] === '127.0.0.7' && (entry.level ?? 0) >= 30);
    expect(String(line.msg)).not.toBe('');
  });

  it('a ban logs a warn line naming the client ip', async () => {
    const attacker = new HttpClient(server.baseUrl, { localAddress: '127.0.0.8' });
    for (let n = 1; n <= 5; n++) await attacker.post('/auth/verify', { body: { token: `guess-${n}` } });
    const line = await server.waitForLog((entry) => entry.level === 40 && entry['ip'] === '127.0.0.8');
    expect(String(line.msg)).toMatch(/ban/i);
  });

  it('the configured token never appears in any log line or on stderr, through update, verify, cookie use and regenerate', async () => {
    const browser = new HttpClient(server.baseUrl);
    const temporary = readWebuiFile(server.dataDir).access_token;
    expect((await browser.post('/auth/verify', { body: { token: temporary } })).json).toMatchObject({ valid: true });

    expect((await browser.post('/auth/update', { body: { new_token: STRONG_TOKEN } })).json).toMatchObject({ success: true });
    expect((await browser.post('/auth/verify', { body: { token: STRONG_TOKEN } })).json).toMatchObject({ valid: true });
    expect((await browser.get('/setup/status')).status).toBe(200);
    expect((await browser.get('/setup/status', { cookie: `bot_session=${STRONG_TOKEN}` })).status).toBe(200);
    expect((await browser.get('/ws-token')).json).toMatchObject({ success: true });
    expect((await browser.post('/setup/complete')).status).toBe(200);
    // A token with ; and , travels percent-encoded in the cookie (docs/decisions/0006-session-cookie.md); it must not leak in either form.
    expect((await browser.post('/auth/update', { body: { new_token: OTHER_STRONG_TOKEN } })).json).toMatchObject({ success: true });
    expect((await browser.post('/auth/verify', { body: { token: OTHER_STRONG_TOKEN } })).json).toMatchObject({ valid: true });
    expect((await browser.get('/setup/status')).status).toBe(200);
    const regenerated = await browser.post('/auth/regenerate');
    const generated = String(regenerated.json?.['token']);
    expect(generated).toMatch(HEX64);
    expect((await browser.post('/auth/verify', { body: { token: generated } })).json).toMatchObject({ valid: true });
    expect((await browser.get('/auth/check')).json).toMatchObject({ authenticated: true });
    // A stale cookie with the old configured token is a failed verification: logged, but without the value.
    expect((await browser.get('/setup/status', { cookie: `bot_session=${encodeURIComponent(OTHER_STRONG_TOKEN)}` })).status).toBe(401);

    // Something was logged for these requests, so silence is not what makes the check pass.
    await server.waitForLog((entry) => /changed/i.test(String(entry.msg)) && entry['how'] === 'regenerate');
    await server.waitForLog((entry) => entry.msg === 'request' && entry['path'] === '/api/webui/auth/check');
    await eventually(() => server.logs().some((entry) => entry['via'] === 'cookie'), 5_000, 'stale cookie logged');
    const text = everything();
    for (const secret of [STRONG_TOKEN, OTHER_STRONG_TOKEN, encodeURIComponent(OTHER_STRONG_TOKEN), generated]) {
      expect(text).not.toContain(secret);
    }
  });

  it('wrong guesses are not logged either: a near miss may be most of the secret', () => {
    const text = everything();
    expect(text).not.toContain('not-the-token');
    expect(text).not.toContain('guess-1');
  });
});
