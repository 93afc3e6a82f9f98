import { SESSION_CHECK_TARGET } from '@webui/http-hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { seenAnswer, startInProcessServer, type InProcessServer } from '../harness/processes/in-process-server.js';
import { rawExchange } from '../harness/clients/raw-exchange.js';

/**
 * The /auth/check fast path answers exactly as the Hono route does: the whole Node server in-process,
 * each request sent once to the fast path's exact target and once, with an empty query, to the app,
 * each way from its own source address so that counting and bans are compared too.
 */

let server: InProcessServer;
let cookie: string;
let nextAddress = 10;

beforeAll(async () => {
  server = await startInProcessServer();
  cookie = `bot_session=${server.token}`;
});
afterAll(() => server.close());

/** Two fresh source addresses: one for the fast path, one for the app. */
const addressPair = (): [string, string] => [`127.0.0.${nextAddress++}`, `127.0.0.${nextAddress++}`];

const check = (target: string, headerLines: string, from: string, method = 'GET') =>
  rawExchange(server.port, `${method} ${target} HTTP/1.1\r\n${headerLines}`, '', from).then(seenAnswer);

/** Each request of `lines` in turn, both ways; the two sequences of answers. */
async function bothWays(lines: readonly string[], method = 'GET'): Promise<{ fast: object[]; app: object[] }> {
  const [fastFrom, appFrom] = addressPair();
  const fast: object[] = [];
  const app: object[] = [];
  for (const headerLines of lines) {
    fast.push(await check(SESSION_CHECK_TARGET, headerLines, fastFrom, method));
    app.push(await check(`${SESSION_CHECK_TARGET}?`, headerLines, appFrom, method));
  }
  return { fast, app };
}

const HOST = 'Host: 127.0.0.1:8001\r\n';

describe('GET /auth/check: the Node fast path and the Hono route give the same answer', () => {
  it('is on: the in-process server has the fast path in front of its listener', () => {
    expect(server.running.webui.sessionCheckShortcut()).toBeTypeOf('function');
  });

  it.each([
    ['a valid cookie', `${HOST}Cookie: @cookie@\r\n`, '200'],
    ['no cookie', HOST, '200'],
    ['the token as a bearer', `${HOST}Authorization: Bearer @token@\r\n`, '200'],
    ['duplicate session cookies', `${HOST}Cookie: bot_session=a; bot_session=b\r\n`, '400'],
    ['a cookie and a conflicting bearer', `${HOST}Cookie: @cookie@\r\nAuthorization: Bearer wk_other\r\n`, '400'],
    // Declined by the fast path (left to the app): the two must still agree.
    ['an Origin (CORS)', `${HOST}Origin: http://127.0.0.1:8001\r\nCookie: @cookie@\r\n`, '200'],
    ['a foreign Host', `Host: evil.example\r\nCookie: @cookie@\r\n`, null],
    ["an upper-case Host (node-server's own 400)", `Host: LOCALHOST:8001\r\nCookie: @cookie@\r\n`, '400'],
    ['two Host lines', `${HOST}Host: evil.example\r\nCookie: @cookie@\r\n`, null],
  ])('with %s', async (_case, headerLines, status) => {
    const line = headerLines.replace('@cookie@', cookie).replace('@token@', server.token);
    const { fast, app } = await bothWays([line]);
    expect(fast).toEqual(app);
    if (status !== null) expect(fast[0]).toMatchObject({ status });
  });

  it('with a HEAD request (declined): the same headers', async () => {
    const { fast, app } = await bothWays([`${HOST}Cookie: ${cookie}\r\n`], 'HEAD');
    expect(fast).toEqual(app);
  });

  it('with wrong cookies: each counted alike, until the same 429 with the same Retry-After', async () => {
    const { fast, app } = await bothWays(Array.from({ length: 7 }, (_, n) => `${HOST}Cookie: bot_session=wrong-${n}\r\n`));
    expect(fast).toEqual(app);
    expect(fast.at(-1)).toMatchObject({ status: '429' });
    expect((fast.at(-1) as { retry: string | null }).retry).not.toBeNull();
  });

  it('from a banned address: the same 429', async () => {
    const [fastFrom, appFrom] = addressPair();
    for (const from of [fastFrom, appFrom]) {
      const guesser = new HttpClient(`http://127.0.0.1:${server.port}`, { localAddress: from });
      for (let n = 0; n < 6; n++) await guesser.post('/auth/verify', { body: { token: `guess-${n}` } });
    }
    const fast = await check(SESSION_CHECK_TARGET, `${HOST}Cookie: ${cookie}\r\n`, fastFrom);
    const app = await check(`${SESSION_CHECK_TARGET}?`, `${HOST}Cookie: ${cookie}\r\n`, appFrom);
    expect(fast).toEqual(app);
    expect(fast).toMatchObject({ status: '429' });
  });

  // Last: it replaces the token every other case uses.
  it('with a stale cookie after a token change: the same answer, polled again and again without a ban', async () => {
    const operator = new HttpClient(`http://127.0.0.1:${server.port}`, { localAddress: '127.0.0.250' });
    const regenerated = await operator.post('/auth/regenerate', { cookie });
    expect(regenerated.status, regenerated.text).toBe(200);
    const { fast, app } = await bothWays(Array.from({ length: 7 }, () => `${HOST}Cookie: ${cookie}\r\n`));
    expect(fast).toEqual(app);
    expect(fast.every((answer) => (answer as { status: string }).status === '200')).toBe(true);
  });
});
