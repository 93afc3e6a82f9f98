import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { parseRawResponses, rawExchange } from '../harness/clients/raw-exchange.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';
import { connect } from '../harness/clients/ws-client.js';

afterAll(cleanupServers);

/** 300 wrong bot_session values, as one attacker's Cookie header carries them. */
const wrongCookies = (round: number) => Array.from({ length: 300 }, (_, n) => `bot_session=guess-${round}-${n}`).join('; ');

describe('a request presenting more than one credential is refused unread, as one guess', () => {
  let server: ServerProcess;
  let token: string;
  /** The operator, from an address of its own: reads the failures counted per address. */
  let operator: HttpClient;
  const from = (address: string) => new HttpClient(server.baseUrl, { localAddress: address });

  /** The failures counted against an address, and whether it is banned, as GET /security/bans lists them. */
  async function countedAgainst(address: string): Promise<{ failures: number; banned: boolean }> {
    const answer = await operator.get('/security/bans');
    expect(answer.status, answer.text).toBe(200);
    const entry = (answer.json?.['bans'] as Array<{ key: string; failures: number; banned_until: string | null }>).find(
      (ban) => ban.key === address,
    );
    return { failures: entry?.failures ?? 0, banned: (entry?.banned_until ?? null) !== null };
  }

  /** A raw request with exactly these header lines, from `address`: the only way to send a header twice. */
  async function raw(address: string, target: string, headerLines: string[]): Promise<HttpResponse> {
    const text = await rawExchange(
      server.port,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${headerLines.map((line) => `${line}\r\n`).join('')}`,
      '',
      address,
    );
    const [response, ...more] = parseRawResponses(text, false);
    expect(more).toEqual([]);
    if (!response) throw new Error(`no answer: ${JSON.stringify(text)}`);
    const json = response.headers.get('content-type')?.startsWith('application/json')
      ? (JSON.parse(response.body) as Record<string, unknown>)
      : null;
    return { status: response.status, headers: Object.fromEntries(response.headers), json, text: response.body, setCookie: [] };
  }

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    operator = new HttpClient(server.baseUrl, { localAddress: '127.0.0.1' });
    await operator.post('/auth/verify', { body: { token } });
  });

  it('300 wrong bot_session cookies and the right one: 400 duplicate_credentials, not logged in, one guess counted', async () => {
    const cookie = `${wrongCookies(0)}; bot_session=${encodeURIComponent(token)}`;
    // /auth/check through Node's fast path and through the app (a query defeats the fast path), a guarded route, /ws-token.
    const client = from('127.0.0.21');
    for (const path of ['/auth/check', '/auth/check?', '/setup/status', '/ws-token']) {
      const answer = await client.get(path, { cookie });
      expectErrorBody(answer, 400, 'duplicate_credentials');
      expect(answer.json).not.toHaveProperty('authenticated', true);
    }
    expect(await countedAgainst('127.0.0.21')).toEqual({ failures: 4, banned: false });
    await eventually(
      () => server.logs().filter((line) => line.msg === 'session cookie rejected' && line['ip'] === '127.0.0.21').length === 4,
      5_000,
      'four counted failures logged',
    );
  });

  it('the same bot_session value twice is refused too: nothing is compared', async () => {
    const single = `bot_session=${encodeURIComponent(token)}`;
    expectErrorBody(await from('127.0.0.22').get('/auth/check', { cookie: `${single}; ${single}` }), 400, 'duplicate_credentials');
    expect(await countedAgainst('127.0.0.22')).toEqual({ failures: 1, banned: false });
  });

  it('five requests of 300 wrong cookies ban the address: 1,500 values are five guesses', async () => {
    const client = from('127.0.0.23');
    for (let round = 1; round <= 4; round++)
      expectErrorBody(await client.get('/auth/check', { cookie: wrongCookies(round) }), 400, 'duplicate_credentials');
    expectErrorBody(await client.get('/auth/check', { cookie: wrongCookies(5) }), 429, 'too_many_attempts');
    expect(await countedAgainst('127.0.0.23')).toEqual({ failures: 0, banned: true });
    // Banned: even the right token, alone, is not compared.
    expectErrorBody(await client.post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');
    expect((await from('127.0.0.24').get('/auth/check', { cookie: `bot_session=${encodeURIComponent(token)}` })).json).toMatchObject({
      authenticated: true,
    });
  });

  it('two Cookie header lines with a bot_session each are refused the same way', async () => {
    const answer = await raw('127.0.0.25', '/api/webui/auth/check', [
      'Cookie: bot_session=guess-a',
      `Cookie: bot_session=${encodeURIComponent(token)}`,
    ]);
    expectErrorBody(answer, 400, 'duplicate_credentials');
    expect(await countedAgainst('127.0.0.25')).toEqual({ failures: 1, banned: false });
  });

  it('two Authorization headers: 400 duplicate_credentials, counted, on the fast path and through the app', async () => {
    const lines = ['Authorization: Bearer wk_wrong-guess', `Authorization: Bearer ${token}`];
    for (const target of ['/api/webui/auth/check', '/api/webui/auth/check?', '/api/webui/setup/status'])
      expectErrorBody(await raw('127.0.0.26', target, lines), 400, 'duplicate_credentials');
    expect(await countedAgainst('127.0.0.26')).toEqual({ failures: 3, banned: false });
    // The right token alone, as one header, still works from there.
    expect((await raw('127.0.0.26', '/api/webui/auth/check', [`Authorization: Bearer ${token}`])).json).toMatchObject({
      authenticated: true,
    });
  });

  it('a cookie and a different bearer are refused and counted as a guess', async () => {
    const client = from('127.0.0.27');
    const answer = await client.get('/setup/status', { cookie: 'bot_session=guess', headers: { authorization: `Bearer ${token}` } });
    expectErrorBody(answer, 400, 'conflicting_credentials');
    expect(await countedAgainst('127.0.0.27')).toEqual({ failures: 1, banned: false });
  });

  it(
    'the WebSocket with two token parameters is refused before any ticket is spent, as one guess; the ticket then ' + 'works alone',
    async () => {
      const ticketAnswer = await operator.get('/ws-token');
      const ticket = String(ticketAnswer.json?.['token']);
      const upgrade = [
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      ];
      const refused = await raw('127.0.0.28', `/api/webui/ws?token=wrong-ticket&token=${encodeURIComponent(ticket)}`, upgrade);
      expectErrorBody(refused, 400, 'duplicate_credentials');
      expectErrorBody(
        await raw('127.0.0.28', `/api/webui/ws?token=${encodeURIComponent(ticket)}&token=${encodeURIComponent(ticket)}`, upgrade),
        400,
        'duplicate_credentials',
      );
      expect(await countedAgainst('127.0.0.28')).toEqual({ failures: 2, banned: false });
      const opened = await connect(server, ticket);
      expect(opened.opened).toBe(true);
      if (opened.opened) opened.client.close();
    },
  );
});
