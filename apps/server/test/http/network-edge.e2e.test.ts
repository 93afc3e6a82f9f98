import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, parseSetCookie, type HttpResponse, type ParsedSetCookie } from '../harness/clients/http-client.js';
import { startNginx, stopAllNginx, type NginxProxy } from '../harness/proxies/nginx.js';
import { cleanupServers, eventually, runServerToExit, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

// nginx first: its temp dir is removed with the servers'.
afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
});

const LISTENING = 'WebUI API listening';
const BANNED = 'client banned after repeated failed verifications';
const INSECURE_WARNING = /session cookie sent without Secure/;
const SEVEN_DAYS = String(7 * 86_400);

type HeaderMap = Record<string, string>;

/** The bot_session line of an answer, parsed; fails the test when there is none. */
function sessionCookie(response: HttpResponse): ParsedSetCookie {
  const line = response.setCookie.find((entry) => entry.startsWith('bot_session='));
  expect(line, `no bot_session Set-Cookie in ${JSON.stringify(response.setCookie)}`).toBeDefined();
  return parseSetCookie(line as string);
}

function wrongVerify(client: HttpClient, n: number, headers: HeaderMap = {}): Promise<HttpResponse> {
  return client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, headers, cookie: null });
}

/** Four wrong guesses answer 200, the fifth 429: the client identified by these requests is banned. */
async function banWith(client: HttpClient, headersFor: (n: number) => HeaderMap = () => ({})): Promise<void> {
  for (let n = 1; n <= 4; n++) {
    const answer = await wrongVerify(client, n, headersFor(n));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ valid: false });
  }
  expectErrorBody(await wrongVerify(client, 5, headersFor(5)), 429, 'too_many_attempts');
}

async function expectLoginWorks(client: HttpClient, token: string, headers: HeaderMap = {}): Promise<HttpResponse> {
  const answer = await client.post('/auth/verify', { body: { token }, headers, cookie: null });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({ valid: true });
  return answer;
}

async function expectBanned(client: HttpClient, token: string, headers: HeaderMap = {}): Promise<void> {
  expectErrorBody(await client.post('/auth/verify', { body: { token }, headers, cookie: null }), 429, 'too_many_attempts');
}

function bannedIps(server: ServerProcess): string[] {
  return server
    .logs()
    .filter((line) => line.msg === BANNED)
    .map((line) => String(line['ip']));
}

/** The ban log lines name exactly these client addresses, in order (log lines may trail the answer a little). */
async function expectBannedIps(server: ServerProcess, ips: string[]): Promise<void> {
  await eventually(() => bannedIps(server).length >= ips.length, 5_000, `${ips.length} ban log lines`);
  expect(bannedIps(server)).toEqual(ips);
}

describe('behind a real nginx: trusted_proxies = 127.0.0.1 (plus CIDRs and ::1)', () => {
  let server: ServerProcess;
  let nginx: NginxProxy;
  let token: string;
  /** A client reaching nginx's plain-http door (X-Forwarded-Proto $scheme) from a source address. */
  const viaNginx = (localAddress: string) => new HttpClient(nginx.httpUrl, { localAddress });
  /** The door where nginx says X-Forwarded-Proto: https, as when it terminates TLS. */
  const viaHttpsNginx = (localAddress: string) => new HttpClient(nginx.httpsUrl, { localAddress });
  /** Straight to the server, bypassing nginx. 127.0.0.1 is the trusted proxy's own address. */
  const direct = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });

  beforeAll(async () => {
    server = await startServer({
      config: [
        '[webui]',
        'trusted_proxies = ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]',
        'allowed_hosts = ["bot.example.com"]',
        'allowed_origins = ["http://localhost:5173"]',
        '',
      ].join('\n'),
    });
    nginx = await startNginx(server.port);
    token = readWebuiFile(server.dataDir).access_token;
  });

  describe('client IP (docs/decisions/0003-client-address.md) and bans keyed by it', () => {
    it('bans the real client 127.0.0.2 behind nginx, not nginx itself: 127.0.0.3 through the same nginx logs in', async () => {
      await banWith(viaNginx('127.0.0.2'));
      await expectBanned(viaNginx('127.0.0.2'), token);
      await expectLoginWorks(viaNginx('127.0.0.3'), token);
      await expectLoginWorks(direct('127.0.0.1'), token);
      await expectBannedIps(server, ['127.0.0.2']);
    });

    it('the banned 127.0.0.2 cannot escape by sending its own X-Forwarded-For or X-Real-IP through nginx', async () => {
      const attacker = viaNginx('127.0.0.2');
      const attempts: HeaderMap[] = [
        { 'x-forwarded-for': '127.0.0.3' },
        { 'x-forwarded-for': '127.0.0.3, 127.0.0.1' },
        { 'x-forwarded-for': '10.1.2.3' },
        { 'x-real-ip': '127.0.0.3' },
        { 'x-forwarded-for': '203.0.113.50', 'x-real-ip': '203.0.113.51' },
      ];
      for (const headers of attempts) await expectBanned(attacker, token, headers);
    });

    it('the banned 127.0.0.2 cannot escape by going around nginx with forwarded headers either', async () => {
      await expectBanned(direct('127.0.0.2'), token, { 'x-forwarded-for': '127.0.0.3', 'x-real-ip': '127.0.0.3' });
    });

    it(
      'a spoofed left-most X-Forwarded-For changes nothing: 127.0.0.4 guessing as "127.0.0.5" is banned itself, ' + '127.0.0.5 is not',
      async () => {
        const spoofs: HeaderMap[] = [
          { 'x-forwarded-for': '127.0.0.5' },
          { 'x-forwarded-for': '127.0.0.5, 127.0.0.1' },
          { 'x-forwarded-for': '198.51.100.1' },
          { 'x-real-ip': '127.0.0.5' },
          { 'x-forwarded-for': '10.0.0.1' },
        ];
        await banWith(viaNginx('127.0.0.4'), (n) => spoofs[n - 1] as HeaderMap);
        await expectBanned(viaNginx('127.0.0.4'), token);
        await expectLoginWorks(viaNginx('127.0.0.5'), token);
        await expectLoginWorks(direct('127.0.0.5'), token);
        await expectLoginWorks(direct('127.0.0.1'), token, { 'x-forwarded-for': '198.51.100.1' });
      },
    );

    it('an untrusted peer (127.0.0.6) sending X-Forwarded-For / X-Real-IP straight to the server is banned as itself', async () => {
      const spoofed = { 'x-forwarded-for': '127.0.0.7', 'x-real-ip': '127.0.0.7' };
      await banWith(direct('127.0.0.6'), () => spoofed);
      await expectBanned(direct('127.0.0.6'), token);
      await expectBanned(viaNginx('127.0.0.6'), token);
      await expectLoginWorks(direct('127.0.0.7'), token);
      await expectLoginWorks(viaNginx('127.0.0.7'), token);
    });

    it('X-Forwarded-For is walked right to left past trusted CIDR hops (10.0.0.0/8, fd00::/8) to the first untrusted address', async () => {
      const proxy = direct('127.0.0.1');
      await banWith(proxy, (n) => ({ 'x-forwarded-for': n % 2 === 0 ? '198.51.100.7, 10.9.9.9' : '198.51.100.7, fd00::5, 10.1.1.1' }));
      await expectBanned(proxy, token, { 'x-forwarded-for': '198.51.100.7' });
      await expectBanned(proxy, token, { 'x-forwarded-for': '203.0.113.9, 198.51.100.7, 10.2.2.2' });
      await expectLoginWorks(proxy, token, { 'x-forwarded-for': '198.51.100.9, 10.9.9.9' });
      // The proxy's own address is not the one banned.
      await expectLoginWorks(proxy, token);
    });

    it('a trusted IPv6 peer (::1) is believed the same way', async () => {
      const proxy6 = new HttpClient(`http://[::1]:${server.port}`);
      await banWith(proxy6, () => ({ 'x-forwarded-for': '198.51.100.30' }));
      await expectBanned(direct('127.0.0.1'), token, { 'x-forwarded-for': '198.51.100.30' });
      await expectLoginWorks(proxy6, token, { 'x-forwarded-for': '198.51.100.31' });
    });

    it('an IPv4-mapped IPv6 forwarded address is the same client as its IPv4 form', async () => {
      const proxy = direct('127.0.0.1');
      await banWith(proxy, (n) => ({ 'x-forwarded-for': n % 2 === 0 ? '::ffff:198.51.100.40' : '198.51.100.40' }));
      await expectBanned(proxy, token, { 'x-forwarded-for': '::ffff:198.51.100.40' });
    });

    it('IPv6 clients are counted per /64: 2001:db8:1:2::a and ::b share one count and one ban, 2001:db8:1:3::a does not', async () => {
      const proxy = direct('127.0.0.1');
      const from = (ip: string): HeaderMap => ({ 'x-forwarded-for': ip });
      for (let n = 1; n <= 3; n++) expect((await wrongVerify(proxy, n, from('2001:db8:1:2::a'))).status).toBe(200);
      const fourth = await wrongVerify(proxy, 4, from('2001:db8:1:2::b'));
      expect(fourth.json).toMatchObject({ valid: false, remaining_attempts: 1 });
      expectErrorBody(await wrongVerify(proxy, 5, from('2001:db8:1:2::b')), 429, 'too_many_attempts');
      await expectBanned(proxy, token, from('2001:db8:1:2::a'));
      await expectBanned(proxy, token, from('2001:db8:1:2:ffff:ffff:ffff:ffff'));
      await expectLoginWorks(proxy, token, from('2001:db8:1:3::a'));
    });
  });

  describe('guessing through the cookie (docs/decisions/0004-guessing-through-the-cookie.md): no endpoint is an oracle outside the ban', () => {
    it('five distinct wrong cookies through nginx, spread over /auth/check, /ws-token and 401 endpoints, ban the real client', async () => {
      const guesser = viaNginx('127.0.0.9');
      const check = await guesser.get('/auth/check', { cookie: 'bot_session=guess-1' });
      expect(check.status).toBe(200);
      expect(check.json).toEqual({ authenticated: false });
      const ticket = await guesser.get('/ws-token', { cookie: 'bot_session=guess-2' });
      expect(ticket.status).toBe(200);
      expect(ticket.json).toMatchObject({ success: false });
      expectErrorBody(await guesser.get('/setup/status', { cookie: 'bot_session=guess-3' }), 401);
      expectErrorBody(await guesser.post('/auth/update', { cookie: 'bot_session=guess-4', body: { new_token: STRONG_TOKEN } }), 401);
      expectErrorBody(await guesser.get('/auth/check', { cookie: 'bot_session=guess-5' }), 429, 'too_many_attempts');
      await server.waitForLog((line) => line.msg === BANNED && line['ip'] === '127.0.0.9');
    });

    it('while banned the right cookie tells nothing: /auth/check, /ws-token, /setup/status and /auth/verify all answer 429', async () => {
      const guesser = viaNginx('127.0.0.9');
      const cookie = `bot_session=${encodeURIComponent(token)}`;
      for (const answer of [
        await guesser.get('/auth/check', { cookie }),
        await guesser.get('/ws-token', { cookie }),
        await guesser.get('/setup/status', { cookie }),
        await guesser.post('/auth/verify', { body: { token }, cookie: null }),
      ]) {
        expectErrorBody(answer, 429, 'too_many_attempts');
        expect(answer.text).not.toContain('"authenticated":true');
        expect(answer.json).not.toHaveProperty('token');
      }
    });

    it('another client through the same nginx keeps its session', async () => {
      const answer = await viaNginx('127.0.0.10').get('/auth/check', { cookie: `bot_session=${encodeURIComponent(token)}` });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ authenticated: true });
    });
  });

  describe('Secure on the cookie (docs/decisions/0006-session-cookie.md) and X-Forwarded-Proto', () => {
    it(
      'X-Forwarded-Proto: https from the trusted nginx: Secure, HttpOnly, SameSite=Lax, Path=/, Max-Age 7 days; cleared ' + 'the same way',
      async () => {
        const client = viaHttpsNginx('127.0.0.11');
        const cookie = sessionCookie(await expectLoginWorks(client, token));
        expect(cookie.attributes.get('secure')).toBe(true);
        expect(cookie.attributes.get('httponly')).toBe(true);
        expect(String(cookie.attributes.get('samesite')).toLowerCase()).toBe('lax');
        expect(cookie.attributes.get('path')).toBe('/');
        expect(cookie.attributes.get('max-age')).toBe(SEVEN_DAYS);
        const cleared = sessionCookie(await client.post('/auth/logout', { cookie: null }));
        expect(cleared.attributes.get('secure')).toBe(true);
        expect(cleared.attributes.get('max-age')).toBe('0');
      },
    );

    it(
      'plain http through nginx: no Secure, even when the client itself sends X-Forwarded-Proto: https (nginx ' + 'overwrites it)',
      async () => {
        const client = viaNginx('127.0.0.11');
        expect(sessionCookie(await expectLoginWorks(client, token)).attributes.has('secure')).toBe(false);
        const spoofed = await expectLoginWorks(client, token, { 'x-forwarded-proto': 'https' });
        expect(sessionCookie(spoofed).attributes.has('secure')).toBe(false);
      },
    );

    it('X-Forwarded-Proto: https straight from an untrusted peer (127.0.0.12) is ignored', async () => {
      const answer = await expectLoginWorks(direct('127.0.0.12'), token, { 'x-forwarded-proto': 'https' });
      expect(sessionCookie(answer).attributes.has('secure')).toBe(false);
    });

    it('X-Forwarded-Proto: https straight from the trusted peer (127.0.0.1) is believed', async () => {
      const answer = await expectLoginWorks(direct('127.0.0.1'), token, { 'x-forwarded-proto': 'https' });
      expect(sessionCookie(answer).attributes.get('secure')).toBe(true);
    });

    it('production over plain HTTP warns once in the log, not once per login', async () => {
      await expectLoginWorks(direct('127.0.0.12'), token);
      expect(server.logs().filter((line) => INSECURE_WARNING.test(String(line.msg)))).toHaveLength(1);
    });
  });

  describe('CSRF and CORS (docs/decisions/0009-csrf-and-dns-rebinding.md)', () => {
    let victimCookie: string;
    const victim = () => direct('127.0.0.13');
    const cookieHeader = () => `bot_session=${victimCookie}`;

    beforeAll(async () => {
      victimCookie = sessionCookie(await expectLoginWorks(victim(), token)).value;
    });

    function expectNothingChanged(before: ReturnType<typeof readWebuiFile>): void {
      const after = readWebuiFile(server.dataDir);
      expect(after.access_token).toBe(before.access_token);
      expect(after.token_source).toBe(before.token_source);
      expect(after.first_setup_completed).toBe(before.first_setup_completed);
    }

    it(
      'a cross-origin form POST (text/plain) from http://localhost:6666 to /auth/regenerate with the victim cookie: 403, ' +
        'nothing changes',
      async () => {
        const before = readWebuiFile(server.dataDir);
        for (const client of [victim(), viaNginx('127.0.0.13')]) {
          const answer = await client.post('/auth/regenerate', {
            cookie: cookieHeader(),
            rawBody: 'token=whatever',
            headers: { 'content-type': 'text/plain', origin: 'http://localhost:6666' },
          });
          expectErrorBody(answer, 403, 'origin_not_allowed');
          expect(answer.text).not.toMatch(/[0-9a-f]{64}/);
          expect(answer.setCookie).toEqual([]);
        }
        expectNothingChanged(before);
        const check = await victim().get('/auth/check', { cookie: cookieHeader() });
        expect(check.json).toMatchObject({ authenticated: true });
      },
    );

    it.each([
      ['/auth/update', 'http://localhost:6666', { new_token: OTHER_STRONG_TOKEN }],
      ['/setup/complete', 'null', undefined],
      ['/setup/reset', 'http://127.0.0.1.evil.example', undefined],
      ['/auth/logout', 'https://localhost:6666', undefined],
    ])('POST %s from origin %s with the victim cookie: 403, nothing changes', async (path, origin, body) => {
      const before = readWebuiFile(server.dataDir);
      const answer = await victim().post(path, { cookie: cookieHeader(), body, headers: { origin } });
      expectErrorBody(answer, 403, 'origin_not_allowed');
      expect(answer.setCookie).toEqual([]);
      expectNothingChanged(before);
    });

    it(
      'allowed origins are let through: the listen origin, webui.allowed_origins, and the origin addressed ' + 'through the proxy',
      async () => {
        const ok = async (client: HttpClient, origin: string, headers: HeaderMap = {}) => {
          const answer = await client.post('/auth/logout', { cookie: null, headers: { origin, ...headers } });
          expect(answer.status, `${origin}: ${answer.text}`).toBe(200);
        };
        await ok(victim(), `http://127.0.0.1:${server.port}`);
        await ok(victim(), 'http://localhost:5173');
        // A dashboard served at https://bot.example.com through the same nginx (which terminates TLS).
        await ok(viaHttpsNginx('127.0.0.13'), 'https://bot.example.com', { host: 'bot.example.com' });
        await ok(viaNginx('127.0.0.13'), 'http://bot.example.com', { host: 'bot.example.com' });
      },
    );

    it(
      'the addressed origin takes its scheme from docs/decisions/0006-session-cookie.md: http over an https proxy, or https claimed by an untrusted peer, ' +
        'is refused',
      async () => {
        const refuse = async (client: HttpClient, origin: string, headers: HeaderMap) => {
          expectErrorBody(await client.post('/auth/logout', { cookie: null, headers: { origin, ...headers } }), 403, 'origin_not_allowed');
        };
        await refuse(viaHttpsNginx('127.0.0.13'), 'http://bot.example.com', { host: 'bot.example.com' });
        await refuse(victim(), 'https://bot.example.com', { host: 'bot.example.com', 'x-forwarded-proto': 'https' });
      },
    );

    it('CORS: credentials and Allow-Origin only for allowed origins, never *', async () => {
      const preflight = (origin: string) =>
        victim().request('OPTIONS', '/auth/regenerate', {
          cookie: null,
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
      const foreign = await preflight('http://localhost:6666');
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
      const friend = await preflight('http://localhost:5173');
      expect(friend.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(friend.headers['access-control-allow-credentials']).toBe('true');

      const foreignGet = await victim().get('/auth/check', { cookie: cookieHeader(), headers: { origin: 'http://localhost:6666' } });
      expect(foreignGet.headers['access-control-allow-origin']).toBeUndefined();
      const friendGet = await victim().get('/auth/check', { cookie: cookieHeader(), headers: { origin: 'http://localhost:5173' } });
      expect(friendGet.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(friendGet.headers['access-control-allow-credentials']).toBe('true');
      for (const answer of [foreign, friend, foreignGet, friendGet]) expect(answer.headers['access-control-allow-origin']).not.toBe('*');
    });
  });

  describe('DNS rebinding (docs/decisions/0009-csrf-and-dns-rebinding.md): bound to loopback only', () => {
    const health = (client: HttpClient, host: string) => client.get('/health', { cookie: null, headers: { host } });

    it.each([
      'evil.example',
      `evil.example:${8001}`,
      '127.0.0.1.evil.example',
      'localhost.evil.example',
      '192.168.1.10',
      '[2001:db8::1]:8001',
    ])('Host %s straight to the server: 403 with an error body (docs/decisions/0001-error-bodies.md)', async (host) => {
      expectErrorBody(await health(direct('127.0.0.14'), host), 403, 'host_not_allowed');
    });

    it('a foreign Host is refused on every path, the session endpoints included', async () => {
      const client = direct('127.0.0.14');
      expectErrorBody(
        await client.get('/setup/status', { cookie: `bot_session=${encodeURIComponent(token)}`, headers: { host: 'evil.example' } }),
        403,
        'host_not_allowed',
      );
      expectErrorBody(await client.post('/auth/verify', { body: { token }, headers: { host: 'evil.example' } }), 403, 'host_not_allowed');
    });

    it.each([
      'localhost',
      'LOCALHOST',
      'localhost:8001',
      '127.0.0.1',
      '127.0.0.5:8001',
      '[::1]:8001',
      'bot.example.com',
      'Bot.Example.Com',
      'bot.example.com:8443',
    ])('Host %s straight to the server is served', async (host) => {
      expect((await health(direct('127.0.0.14'), host)).status).toBe(200);
    });

    it('through nginx with Host $host: a foreign Host is refused, an allowed_hosts name is served', async () => {
      expectErrorBody(await health(viaNginx('127.0.0.14'), 'evil.example'), 403, 'host_not_allowed');
      expect((await health(viaNginx('127.0.0.14'), 'bot.example.com')).status).toBe(200);
      expect((await viaNginx('127.0.0.14').get('/health', { cookie: null })).status).toBe(200);
    });

    it('through nginx with Host $proxy_host: the server sees its own loopback address and serves', async () => {
      const answer = await health(new HttpClient(nginx.proxyHostUrl, { localAddress: '127.0.0.14' }), 'evil.example');
      expect(answer.status, answer.text).toBe(200);
    });
  });

  it('the WebSocket channel works through nginx; a foreign Origin is refused before the ticket is spent', async () => {
    const client = viaNginx('127.0.0.15');
    const cookie = `bot_session=${encodeURIComponent(token)}`;
    const ticket = String((await client.get('/ws-token', { cookie })).json?.['token']);
    const url = `${nginx.httpUrl.replace('http', 'ws')}/api/webui/ws?token=${ticket}`;
    const open = (origin: string) =>
      new Promise<{ status?: number; ready?: unknown }>((resolve, reject) => {
        const socket = new WebSocket(url, { origin, localAddress: '127.0.0.15' });
        socket.once('unexpected-response', (_req, res) => {
          resolve({ status: res.statusCode });
          socket.terminate();
        });
        socket.once('message', (data: Buffer) => {
          resolve({ ready: JSON.parse(data.toString('utf8')) });
          socket.close();
        });
        socket.once('error', reject);
      });
    expect(await open('http://localhost:6666')).toEqual({ status: 403 });
    const opened = await open('http://localhost:5173');
    expect(opened.ready).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
  });
});

describe('a server that trusts no proxy (the default)', () => {
  let server: ServerProcess;
  let nginx: NginxProxy;
  let token: string;
  const direct = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });

  beforeAll(async () => {
    server = await startServer({ config: '[webui]\n' });
    nginx = await startNginx(server.port);
    token = readWebuiFile(server.dataDir).access_token;
  });

  it('X-Forwarded-Proto: https from an nginx it does not trust gives no Secure', async () => {
    const answer = await expectLoginWorks(new HttpClient(nginx.httpsUrl, { localAddress: '127.0.0.2' }), token);
    expect(sessionCookie(answer).attributes.has('secure')).toBe(false);
  });

  it('127.0.0.2 sending X-Forwarded-For / X-Real-IP is banned as 127.0.0.2; 127.0.0.3 is not', async () => {
    await banWith(direct('127.0.0.2'), (n): HeaderMap => (n % 2 === 0 ? { 'x-forwarded-for': '127.0.0.3' } : { 'x-real-ip': '127.0.0.3' }));
    await expectBanned(direct('127.0.0.2'), token);
    await expectBanned(direct('127.0.0.2'), token, { 'x-forwarded-for': '127.0.0.3', 'x-real-ip': '127.0.0.3' });
    await expectLoginWorks(direct('127.0.0.3'), token);
    await expectBannedIps(server, ['127.0.0.2']);
  });

  it('behind an untrusted nginx every client is nginx (127.0.0.1): forwarded addresses are not believed', async () => {
    await banWith(new HttpClient(nginx.httpUrl, { localAddress: '127.0.0.4' }));
    await expectBanned(new HttpClient(nginx.httpUrl, { localAddress: '127.0.0.5' }), token);
    await expectBanned(direct('127.0.0.1'), token);
    await expectBannedIps(server, ['127.0.0.2', '127.0.0.1']);
  });
});

describe('webui.allowed_ips (docs/decisions/0008-allowed-ips.md)', () => {
  let server: ServerProcess;
  let nginx: NginxProxy;
  let token: string;
  const direct = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });

  beforeAll(async () => {
    server = await startServer({
      config: '[webui]\ntrusted_proxies = ["127.0.0.1"]\nallowed_ips = ["127.0.0.2", "127.0.0.16/30", "2001:db8:1::/48"]\n',
    });
    nginx = await startNginx(server.port);
    token = readWebuiFile(server.dataDir).access_token;
  });

  it('any other client gets 403 with an error body (docs/decisions/0001-error-bodies.md) on every path, the public ones, unknown ones and preflights included', async () => {
    const outsider = direct('127.0.0.3');
    const everywhere = new HttpClient(server.baseUrl, { localAddress: '127.0.0.3', prefix: '' });
    const answers: HttpResponse[] = [
      await outsider.get('/health'),
      await outsider.post('/auth/verify', { body: { token } }),
      await outsider.get('/auth/check', { cookie: `bot_session=${encodeURIComponent(token)}` }),
      await outsider.get('/ws-token', { cookie: `bot_session=${encodeURIComponent(token)}` }),
      await outsider.post('/auth/logout'),
      await outsider.get('/setup/status', { cookie: `bot_session=${encodeURIComponent(token)}` }),
      await outsider.get('/no-such-endpoint'),
      await outsider.request('OPTIONS', '/auth/verify', {
        headers: { origin: `http://127.0.0.1:${server.port}`, 'access-control-request-method': 'POST' },
      }),
      await everywhere.get('/'),
      await everywhere.get('/anything/else'),
    ];
    for (const answer of answers) {
      expectErrorBody(answer, 403, 'ip_not_allowed');
      expect(answer.setCookie).toEqual([]);
    }
  });

  it('listed addresses and CIDR members are served; neighbours outside the CIDR are not', async () => {
    expect((await direct('127.0.0.2').get('/health')).status).toBe(200);
    await expectLoginWorks(direct('127.0.0.2'), token);
    expect((await direct('127.0.0.17').get('/health')).status).toBe(200);
    expect((await direct('127.0.0.19').get('/health')).status).toBe(200);
    expectErrorBody(await direct('127.0.0.20').get('/health'), 403, 'ip_not_allowed');
    expectErrorBody(await direct('127.0.0.15').get('/health'), 403, 'ip_not_allowed');
  });

  it('behind nginx the resolved client is checked, not nginx; a forwarded header cannot borrow an allowed address', async () => {
    expect((await new HttpClient(nginx.httpUrl, { localAddress: '127.0.0.2' }).get('/health')).status).toBe(200);
    expectErrorBody(await new HttpClient(nginx.httpUrl, { localAddress: '127.0.0.3' }).get('/health'), 403, 'ip_not_allowed');
    expectErrorBody(
      await new HttpClient(nginx.httpUrl, { localAddress: '127.0.0.3' }).get('/health', { headers: { 'x-forwarded-for': '127.0.0.2' } }),
      403,
      'ip_not_allowed',
    );
    expectErrorBody(
      await direct('127.0.0.3').get('/health', { headers: { 'x-forwarded-for': '127.0.0.2', 'x-real-ip': '127.0.0.2' } }),
      403,
      'ip_not_allowed',
    );
    // The proxy itself is not listed.
    expectErrorBody(await direct('127.0.0.1').get('/health'), 403, 'ip_not_allowed');
  });

  it('IPv6 CIDRs apply to forwarded IPv6 clients', async () => {
    const proxy = direct('127.0.0.1');
    expect((await proxy.get('/health', { headers: { 'x-forwarded-for': '2001:db8:1:5::1' } })).status).toBe(200);
    expectErrorBody(await proxy.get('/health', { headers: { 'x-forwarded-for': '2001:db8:2::1' } }), 403, 'ip_not_allowed');
  });
});

describe('cookie lifetime and Secure from the configuration (docs/decisions/0006-session-cookie.md)', () => {
  let development: ServerProcess;
  let alwaysSecure: ServerProcess;

  beforeAll(async () => {
    [development, alwaysSecure] = await Promise.all([
      startServer({ config: '[webui]\nsession_expire = 30\nmode = "development"\ntrusted_proxies = ["127.0.0.1"]\n' }),
      startServer({ config: '[webui]\nsecure_cookie = true\n' }),
    ]);
  });

  it(
    'session_expire = 30: Max-Age=2592000; in development mode HTTPS from a trusted proxy adds no Secure and ' + 'nothing is warned',
    async () => {
      const client = new HttpClient(development.baseUrl, { localAddress: '127.0.0.1' });
      const answer = await expectLoginWorks(client, readWebuiFile(development.dataDir).access_token, { 'x-forwarded-proto': 'https' });
      const cookie = sessionCookie(answer);
      expect(cookie.attributes.get('max-age')).toBe('2592000');
      expect(cookie.attributes.has('secure')).toBe(false);
      expect(sessionCookie(await client.post('/auth/logout')).attributes.get('max-age')).toBe('0');
      expect(development.logs().some((line) => INSECURE_WARNING.test(String(line.msg)))).toBe(false);
    },
  );

  it('secure_cookie = true: Secure over plain HTTP from an untrusted client, on issue and on clear', async () => {
    const client = new HttpClient(alwaysSecure.baseUrl, { localAddress: '127.0.0.2' });
    const cookie = sessionCookie(await expectLoginWorks(client, readWebuiFile(alwaysSecure.dataDir).access_token));
    expect(cookie.attributes.get('secure')).toBe(true);
    expect(cookie.attributes.get('max-age')).toBe(SEVEN_DAYS);
    expect(sessionCookie(await client.post('/auth/logout')).attributes.get('secure')).toBe(true);
    expect(alwaysSecure.logs().some((line) => INSECURE_WARNING.test(String(line.msg)))).toBe(false);
  });
});

describe('webui.secret_key rotation (docs/decisions/0010-secret-key-revokes-sessions.md)', () => {
  const KEY_A = 'first-secret-key-Alpha';
  const KEY_B = 'second-secret-key-Bravo';
  const config = (key: string) => `[webui]\nsecret_key = "${key}"\n`;
  let cwd: string;
  let server: ServerProcess;
  const client = () => new HttpClient(server.baseUrl);
  const temporaryTokenIn = (s: ServerProcess) => s.logs().find((line) => typeof line['temporary_token'] === 'string')?.['temporary_token'];

  it('with key A: log in, set a configured token, complete the first setup', async () => {
    server = await startServer({ config: config(KEY_A) });
    cwd = server.cwd;
    await expectLoginWorks(client(), readWebuiFile(server.dataDir).access_token);
    const update = await client().post('/auth/update', {
      cookie: `bot_session=${encodeURIComponent(readWebuiFile(server.dataDir).access_token)}`,
      body: { new_token: STRONG_TOKEN },
    });
    expect(update.status, update.text).toBe(200);
    const cookie = `bot_session=${encodeURIComponent(STRONG_TOKEN)}`;
    expect((await client().post('/setup/complete', { cookie })).status).toBe(200);
    const file = readWebuiFile(server.dataDir);
    expect(file).toMatchObject({ access_token: STRONG_TOKEN, token_source: 'configured', first_setup_completed: true });
    // Only a fingerprint is kept, never the key.
    expect(readFileSync(webuiFilePath(server.dataDir), 'utf8')).not.toContain(KEY_A);
    expect(await server.stop()).toBe(0);
  });

  it('restart with key B: the old cookie answers 401, a new temporary token is printed, first setup stays completed', async () => {
    server = await startServer({ cwd, config: config(KEY_B) });
    const oldCookie = `bot_session=${encodeURIComponent(STRONG_TOKEN)}`;
    expectErrorBody(await client().get('/setup/status', { cookie: oldCookie }), 401);
    expect((await client().get('/auth/check', { cookie: oldCookie })).json).toEqual({ authenticated: false });
    expect((await client().post('/auth/verify', { body: { token: STRONG_TOKEN }, cookie: null })).json).toMatchObject({ valid: false });

    const file = readWebuiFile(server.dataDir);
    expect(file.token_source).toBe('temporary');
    expect(file.access_token).not.toBe(STRONG_TOKEN);
    expect(file.first_setup_completed).toBe(true);
    expect(temporaryTokenIn(server)).toBe(file.access_token);
    expect(server.stderr()).toContain(`temporary: ${file.access_token}`);
    expect(server.logs().some((line) => /secret_key changed/.test(String(line.msg)))).toBe(true);
    expect(readFileSync(webuiFilePath(server.dataDir), 'utf8')).not.toContain(KEY_B);

    const login = await expectLoginWorks(client(), file.access_token);
    expect(login.json).toMatchObject({ is_first_setup: false, token_source: 'temporary' });
    const update = await client().post('/auth/update', {
      cookie: `bot_session=${encodeURIComponent(file.access_token)}`,
      body: { new_token: OTHER_STRONG_TOKEN },
    });
    expect(update.status, update.text).toBe(200);
    expect(await server.stop()).toBe(0);
  });

  it('restart with the same key B: the configured token and its sessions are kept, no token is printed', async () => {
    server = await startServer({ cwd, config: config(KEY_B) });
    expect(readWebuiFile(server.dataDir)).toMatchObject({
      access_token: OTHER_STRONG_TOKEN,
      token_source: 'configured',
      first_setup_completed: true,
    });
    expect(temporaryTokenIn(server)).toBeUndefined();
    expect(server.logs().some((line) => /secret_key changed/.test(String(line.msg)))).toBe(false);
    const status = await client().get('/setup/status', { cookie: `bot_session=${encodeURIComponent(OTHER_STRONG_TOKEN)}` });
    expect(status.status, status.text).toBe(200);
    expect(status.json).toMatchObject({ is_first_setup: false, token_source: 'configured' });
    expect(await server.stop()).toBe(0);
  });
});

describe('configuration errors stop the server at startup', () => {
  const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

  it.each([
    ['session_expire = 0', 'webui.session_expire'],
    ['session_expire = 366', 'webui.session_expire'],
    ['session_expire = "30"', 'webui.session_expire'],
    ['session_expire = 7.5', 'webui.session_expire'],
    ['trusted_proxies = ["127.0.0.1", "10.0.0.0/33"]', 'webui.trusted_proxies'],
    ['trusted_proxies = ["2001:db8::/129"]', 'webui.trusted_proxies'],
    ['trusted_proxies = ["nginx.internal"]', 'webui.trusted_proxies'],
    ['trusted_proxies = 127', 'webui.trusted_proxies'],
    ['allowed_ips = "127.0.0.1, 300.1.2.3"', 'webui.allowed_ips'],
    ['allowed_ips = ["10.0.0.0/8/8"]', 'webui.allowed_ips'],
    ['port = 70000', 'webui.port'],
    ['port = -1', 'webui.port'],
    ['trusted_proxy = ["127.0.0.1"]', 'webui.trusted_proxy'],
    ['secure_cookie = "yes"', 'webui.secure_cookie'],
    ['secret_key = ""', 'webui.secret_key'],
    ['allowed_origins = ["http://localhost:5173/path"]', 'webui.allowed_origins'],
  ])('%s: exit 1, one stderr line naming %s and the file, nothing listens, nothing is written', async (line, key) => {
    const run = await runServerToExit({ config: `[webui]\n${line}\n` });
    expect(run.code).toBe(1);
    const lines = nonEmptyLines(run.stderr);
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain(key);
    expect(lines[0]).toContain('config/bot_config.toml');
    expect(run.logs.some((entry) => entry.msg === LISTENING)).toBe(false);
    expect(existsSync(join(run.cwd, 'data'))).toBe(false);
  });

  it('a bad value in the environment names the variable', async () => {
    const run = await runServerToExit({ port: null, env: { WEBUI_PORT: '70000' } });
    expect(run.code).toBe(1);
    const lines = nonEmptyLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('WEBUI_PORT');
    expect(existsSync(join(run.cwd, 'data'))).toBe(false);
  });
});
