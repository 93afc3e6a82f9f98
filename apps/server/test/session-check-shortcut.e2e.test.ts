import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './harness/http-client.js';
import { rawExchange } from './harness/raw-exchange.js';
import { cleanupServers, startServer, type ServerProcess } from './harness/server-process.js';
import { readWebuiFile } from './harness/webui-file.js';

afterAll(cleanupServers);

const CHECK = '/api/webui/auth/check';

/** Status, body and the headers a client acts on; Date and the header order left out. */
function seen(answer: string): object {
  const split = answer.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = answer.slice(0, split).split('\r\n');
  const header = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? null;
  return { status: statusLine.split(' ')[1], body: answer.slice(split + 4), type: header('content-type'), cache: header('cache-control'), retry: header('retry-after') };
}

/** The same request to the shortcut's exact target and, with an empty query, to the Hono app. */
async function bothWays(port: number, headerLines: string): Promise<{ shortcut: object; app: object }> {
  const shortcut = seen(await rawExchange(port, `GET ${CHECK} HTTP/1.1\r\n${headerLines}`));
  const app = seen(await rawExchange(port, `GET ${CHECK}? HTTP/1.1\r\n${headerLines}`));
  return { shortcut, app };
}

describe('GET /auth/check on the Node server: the shortcut answers as the Hono app does', () => {
  let server: ServerProcess;
  let cookie: string;

  beforeAll(async () => {
    server = await startServer({ config: `[webui]\ntrusted_proxies = ["127.0.0.1"]\n` });
    // A script's cookie: the token itself (a login's cookie is the same value, percent-encoded).
    cookie = `bot_session=${readWebuiFile(server.dataDir).access_token}`;
    expect((await new HttpClient(server.baseUrl).get('/auth/check', { cookie })).json).toMatchObject({ authenticated: true });
  });

  it.each([
    ['a valid session', `Host: 127.0.0.1:8001\r\nCookie: @cookie@\r\n`],
    ['no cookie', `Host: localhost:8001\r\n`],
    ['a loopback IPv6 Host', `Host: [::1]:8001\r\nCookie: @cookie@\r\n`],
    ['an upper-case Host', `Host: LOCALHOST:8001\r\nCookie: @cookie@\r\n`],
    ['a shorthand IPv4 Host', `Host: 127.1\r\nCookie: @cookie@\r\n`],
    ['another form of ::1', `Host: [0::1]:8001\r\n`],
    ['a port out of range', `Host: localhost:99999\r\n`],
    ['a foreign Host', `Host: evil.example\r\nCookie: @cookie@\r\n`],
    ['two Host lines', `Host: 127.0.0.1:8001\r\nHost: evil.example\r\n`],
    ['no Host', `Cookie: @cookie@\r\n`],
    ['an Origin (CORS)', `Host: 127.0.0.1:8001\r\nOrigin: http://127.0.0.1:8001\r\nCookie: @cookie@\r\n`],
    ['a forwarded client behind the trusted proxy', `Host: 127.0.0.1:8001\r\nX-Forwarded-For: 203.0.113.9\r\nCookie: @cookie@\r\n`],
  ])('with %s', async (_case, headerLines) => {
    const { shortcut, app } = await bothWays(server.port, headerLines.replace('@cookie@', cookie));
    expect(shortcut).toEqual(app);
    // Every answer of ours says no-store; Bun and Deno refuse a missing or doubled Host themselves, bodiless.
    if ((shortcut as { body: string }).body !== '') expect(shortcut).toMatchObject({ cache: 'no-store' });
  });

  it('bans a forwarded client for wrong cookies on the shortcut, with the app\'s 429, and only that client', async () => {
    const from = (ip: string, value: string) => `Host: 127.0.0.1:8001\r\nX-Forwarded-For: ${ip}\r\nCookie: ${value}\r\n`;
    for (let n = 1; n <= 4; n++) expect(seen(await rawExchange(server.port, `GET ${CHECK} HTTP/1.1\r\n${from('198.51.100.7', `bot_session=wrong-${n}`)}`))).toMatchObject({ status: '200' });
    const banned = await bothWays(server.port, from('198.51.100.7', 'bot_session=wrong-5'));
    expect(banned.shortcut).toMatchObject({ status: '429', retry: '600' });
    const afterBan = await bothWays(server.port, from('198.51.100.7', cookie));
    expect(afterBan.shortcut).toEqual(afterBan.app);
    expect(afterBan.shortcut).toMatchObject({ status: '429' });
    expect(JSON.parse((afterBan.shortcut as { body: string }).body)).toMatchObject({ code: 'too_many_attempts', authenticated: false });
    const other = await bothWays(server.port, from('198.51.100.8', cookie));
    expect(other.shortcut).toEqual(other.app);
    expect(other.shortcut).toMatchObject({ status: '200', body: expect.stringContaining('"authenticated":true') });
  });

  it('keeps the debug request line for /auth/check when the log level is debug (the shortcut is then off)', async () => {
    const debug = await startServer({ config: '[webui]\nlog_level = "debug"\n' });
    await rawExchange(debug.port, `GET ${CHECK} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    await debug.waitForLog((line) => line.msg === 'request' && line['path'] === CHECK && line['status'] === 200);
  });
});
