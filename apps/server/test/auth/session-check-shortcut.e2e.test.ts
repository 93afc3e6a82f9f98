import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { rawExchange } from '../harness/clients/raw-exchange.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const CHECK = '/api/webui/auth/check';

/** Status, body and the headers a client acts on; Date and the header order left out. */
function seen(answer: string): object {
  const split = answer.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = answer.slice(0, split).split('\r\n');
  const header = (name: string) =>
    lines
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim() ?? null;
  return {
    status: statusLine.split(' ')[1],
    body: answer.slice(split + 4),
    type: header('content-type'),
    cache: header('cache-control'),
    retry: header('retry-after'),
  };
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

  // The answer itself is one function both transports call; this checks the Node wiring around it.
  it.each([
    ['a valid session', `Host: 127.0.0.1:8001\r\nCookie: @cookie@\r\n`],
    ['no cookie', `Host: [::1]:8001\r\n`],
    ["an upper-case Host (node-server's own 400)", `Host: LOCALHOST:8001\r\nCookie: @cookie@\r\n`],
    ['a foreign Host', `Host: evil.example\r\nCookie: @cookie@\r\n`],
    ['an Origin (CORS)', `Host: 127.0.0.1:8001\r\nOrigin: http://127.0.0.1:8001\r\nCookie: @cookie@\r\n`],
    ['a forwarded client behind the trusted proxy', `Host: 127.0.0.1:8001\r\nX-Forwarded-For: 203.0.113.9\r\nCookie: @cookie@\r\n`],
  ])('with %s', async (_case, headerLines) => {
    const { shortcut, app } = await bothWays(server.port, headerLines.replace('@cookie@', cookie));
    expect(shortcut).toEqual(app);
  });

  it('keeps the debug request line for /auth/check when the log level is debug (the shortcut is then off)', async () => {
    const debug = await startServer({ config: '[webui]\nlog_level = "debug"\n' });
    await rawExchange(debug.port, `GET ${CHECK} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    await debug.waitForLog((line) => line.msg === 'request' && line['path'] === CHECK && line['status'] === 200);
  });
});
