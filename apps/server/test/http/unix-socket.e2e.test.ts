import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { startNginx, stopAllNginx, type NginxProxy } from '../harness/proxies/nginx.js';
import {
  cleanupServers,
  defaultLauncher,
  eventually,
  launchers,
  makeTempDir,
  runServerToExit,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

// nginx first: its temp dir is removed with the servers'.
afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
});

const BANNED = 'client banned after repeated failed verifications';

// Unix sockets are the Node server's; the Bun and Deno refusals are asked of their launchers from the node project, once.
const onNodeProject = defaultLauncher.name === 'node';

/** The README's recipe: the server on a Unix socket (and loopback TCP, which nobody is trusted on), nginx in front of the socket. */
function socketConfig(socket: string): string {
  return ['[webui]', `host = ["unix:${socket}", "127.0.0.1"]`, 'trusted_proxies = []', 'allowed_hosts = ["bot.example.com"]', ''].join(
    '\n',
  );
}

async function banWith(client: HttpClient, headers: Record<string, string> = {}): Promise<void> {
  for (let n = 1; n <= 4; n++) {
    const answer = await client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, headers, cookie: null });
    expect(answer.status, answer.text).toBe(200);
  }
  expectErrorBody(await client.post('/auth/verify', { body: { token: 'wrong-guess-5' }, headers, cookie: null }), 429, 'too_many_attempts');
}

async function expectLoginWorks(client: HttpClient, token: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
  const answer = await client.post('/auth/verify', { body: { token }, headers });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({ valid: true });
  return answer;
}

describe.runIf(onNodeProject)('webui.host = "unix:/path" behind a real nginx (issue 31, item 3)', () => {
  let server: ServerProcess;
  let nginx: NginxProxy;
  let token: string;
  let socket: string;
  const viaNginx = (localAddress: string) => new HttpClient(nginx.httpUrl, { localAddress });
  const direct = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const overSocket = () => new HttpClient('http://localhost', { socketPath: socket });
  const bannedIps = () =>
    server
      .logs()
      .filter((line) => line.msg === BANNED)
      .map((line) => String(line['ip']));

  beforeAll(async () => {
    const cwd = makeTempDir();
    socket = join(cwd, 'webui-http.sock');
    server = await startServer({ cwd, config: socketConfig(socket) });
    nginx = await startNginx({ socket });
    token = readWebuiFile(server.dataDir).access_token;
  });

  it('listens on the socket, mode 0660, and says so in the banner and the listening line', async () => {
    const stats = lstatSync(socket);
    expect(stats.isSocket()).toBe(true);
    expect(stats.mode & 0o777).toBe(0o660);
    await eventually(() => server.stderr().includes('login URL'), 5_000, 'banner');
    expect(server.stderr()).toContain(`unix:${socket}`);
    expect(server.addresses).toContain(`unix:${socket}`);
  });

  it('a login through nginx over the socket sets the cookie, which then authenticates /auth/check', async () => {
    const browser = viaNginx('127.0.0.2');
    await expectLoginWorks(browser, token);
    const check = await browser.get('/auth/check');
    expect(check.status, check.text).toBe(200);
    expect(check.json).toMatchObject({ authenticated: true });
  });

  it('a ban lands on the real client nginx names in X-Forwarded-For; another client through the same nginx still logs in', async () => {
    await banWith(viaNginx('127.0.0.3'));
    expectErrorBody(await viaNginx('127.0.0.3').post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');
    await expectLoginWorks(viaNginx('127.0.0.4'), token);
    await eventually(() => bannedIps().includes('127.0.0.3'), 5_000, 'ban line for 127.0.0.3');
    expect(bannedIps()).toEqual(['127.0.0.3']);
  });

  it('the WebSocket channel opens through nginx over the socket', async () => {
    const client = viaNginx('127.0.0.5');
    const ticket = String((await client.get('/ws-token', { cookie: `bot_session=${encodeURIComponent(token)}` })).json?.['token']);
    const ready = await new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(`${nginx.httpUrl.replace('http', 'ws')}/api/webui/ws?token=${ticket}`, { localAddress: '127.0.0.5' });
      ws.once('message', (data: Buffer) => {
        resolve(JSON.parse(data.toString('utf8')));
        ws.close();
      });
      ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
      ws.once('error', reject);
    });
    expect(ready).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
  });

  it('a process connecting straight to the TCP port cannot forge X-Forwarded-For: it is banned as itself', async () => {
    await banWith(direct('127.0.0.6'), { 'x-forwarded-for': '203.0.113.7' });
    await eventually(() => bannedIps().includes('127.0.0.6'), 5_000, 'ban line for 127.0.0.6');
    expect(bannedIps()).not.toContain('203.0.113.7');
    await expectLoginWorks(viaNginx('127.0.0.7'), token);
  });

  it('a request on the socket must name a loopback or listed Host: the socket counts as local for the DNS-rebinding rule', async () => {
    expectErrorBody(await overSocket().get('/health', { headers: { host: 'rebound.example' } }), 403, 'host_not_allowed');
    expect((await overSocket().get('/health', { headers: { host: 'bot.example.com' } })).status).toBe(200);
    expect((await overSocket().get('/health')).status).toBe(200);
  });

  it('a request on the socket without X-Forwarded-For is counted as the local client 127.0.0.1, over TCP or the socket alike', async () => {
    await banWith(overSocket());
    await eventually(() => bannedIps().includes('127.0.0.1'), 5_000, 'ban line for 127.0.0.1');
    expectErrorBody(await direct('127.0.0.1').post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');
  });

  it('a clean stop removes the socket file', async () => {
    expect(await server.stop()).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });
});

describe.runIf(onNodeProject)('the socket file at startup', () => {
  afterAll(cleanupServers);

  it(
    'a socket left by a killed server is replaced; a second server on a live socket stops naming the path, leaving the first ' +
      'one serving',
    async () => {
      const cwd = makeTempDir();
      const socket = join(cwd, 'webui-http.sock');
      const config = ['[webui]', `host = ["unix:${socket}"]`, ''].join('\n');
      const killed = await startServer({ cwd, config });
      killed.kill();
      await eventually(() => existsSync(socket), 1_000, 'left-over socket');
      const restarted = await startServer({ cwd, config });
      expect((await new HttpClient('http://localhost', { socketPath: socket }).get('/health')).status).toBe(200);

      const other = makeTempDir();
      const refused = await runServerToExit({ cwd: other, config });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`cannot listen on unix:${socket}: another server answers on it`);
      expect((await new HttpClient('http://localhost', { socketPath: socket }).get('/health')).status).toBe(200);
      expect(await restarted.stop()).toBe(0);
    },
  );

  it('a file that is not a socket is never deleted: the start stops naming the path', async () => {
    const cwd = makeTempDir();
    const path = join(cwd, 'not-a-socket');
    writeFileSync(path, 'keep me');
    const run = await runServerToExit({ cwd, config: ['[webui]', `host = ["unix:${path}"]`, ''].join('\n') });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot listen on unix:${path}: ${path} exists and is not a socket`);
    expect(statSync(path).isFile()).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('keep me');
  });

  it.each(['bun', 'deno'] as const)('on %s a unix: host stops the start with a clear line', async (name) => {
    const cwd = makeTempDir();
    const run = await runServerToExit({
      cwd,
      launcher: launchers[name],
      config: ['[webui]', `host = ["unix:${join(cwd, 's.sock')}"]`, ''].join('\n'),
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unix sockets are supported on the Node server');
  });
});
