import type { ForwardShortcut } from '@webui/gateway';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { startInProcessServer, type InProcessServer } from '../harness/processes/in-process-server.js';
import { parseRawResponses, rawExchange } from '../harness/clients/raw-exchange.js';
import { appListener, withForwardShortcut } from '@webui/assembly/node';

/**
 * A forwarded GET or HEAD answers exactly as the Hono route does: one in-process server with [webui.upstream] in front of a
 * recording upstream, and two listeners over its one app, the fast path's (as bindAll builds it) and the app's alone. Each
 * request goes both ways, each way from its own source address (so counting and bans compare too); the answers (status,
 * headers but Date, body) and what the upstream received (headers, the assertion's claims but its id) must be the same.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
}

const BIG = 3 * 1024 * 1024 + 17;

/** The bot's backend stand-in: records what it gets, answers by path. */
function startRecordingUpstream(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes });
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/webui/slow') return; // never answers: the gateway's timeout
      if (path === '/api/webui/refuse') return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"no"}');
      if (path === '/api/webui/reset') return void req.socket.destroy();
      // An informational head first: the caller gets the final answer only.
      if (path === '/api/webui/hint') res.writeEarlyHints({ link: '</a.css>; rel=preload' });
      if (path === '/api/webui/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BIG });
        return void res.end(Buffer.alloc(BIG, 0x61));
      }
      if (path === '/api/webui/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=60' });
        res.write('one,');
        return void res.end('two');
      }
      res.setHeader('set-cookie', ['theme=dark; Path=/', 'bot_session=forged; Path=/', 'b=2; HttpOnly']);
      res.setHeader('x-hop', 'for one connection');
      res.setHeader('connection', 'keep-alive, x-hop');
      res.setHeader('x-up', ['1', '2']);
      res.setHeader('etag', '"e1"');
      const body = JSON.stringify({ url: req.url, method: req.method });
      res.writeHead(path === '/api/webui/missing' ? 404 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, received })),
  );
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
let downUpstreamPort: number;
let webui: InProcessServer;
let down: InProcessServer;
const listeners: Server[] = [];
let cookie: string;
let readKey: string;
let adminKey: string;
let nextAddress = 10;
/** Which requests the fast path took (its verdict, not a declined one), by their request-target. */
const taken: string[] = [];

const config = (port: number) =>
  [
    '[webui.upstream]',
    `url = "http://127.0.0.1:${port}"`,
    'paths = ["/api/webui", "/assets"]',
    'public_paths = ["/api/webui/version-compatibility", "/assets/*"]',
    'timeout = 1',
    '[webui.upstream.headers]',
    'Cookie = "maibot_session=configured"',
    '',
  ].join('\n');

/** The fast path's listener and the app's alone, over `server`'s one app. */
async function bothListeners(server: InProcessServer): Promise<{ fast: number; app: number }> {
  const shortcut = server.running.webui.forwardShortcut();
  if (!shortcut) throw new Error('no forward shortcut');
  const spied: ForwardShortcut = {
    ...shortcut,
    takes: (method, target) => shortcut.takes(method, target),
    admit(request) {
      const verdict = shortcut.admit(request);
      if (verdict !== null) taken.push(request.target);
      return verdict;
    },
    requestHeaders: (raw, admitted, request) => shortcut.requestHeaders(raw, admitted, request),
    answerHeaders: (raw, path) => shortcut.answerHeaders(raw, path),
    failure: (failure, error) => shortcut.failure(failure, error),
    callerLeft: (path) => shortcut.callerLeft(path),
    written: () => shortcut.written(),
  };
  const app = appListener(server.running.webui.app.fetch);
  const fast = createServer(withForwardShortcut(spied, app).listener);
  const plain = createServer(app);
  listeners.push(fast, plain);
  return { fast: await listen(fast), app: await listen(plain) };
}

let ports: { fast: number; app: number };
let downPorts: { fast: number; app: number };

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const closed = createServer();
  downUpstreamPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  webui = await startInProcessServer(7, undefined, { config: config(upstream.port) });
  down = await startInProcessServer(7, undefined, { config: config(downUpstreamPort) });
  ports = await bothListeners(webui);
  downPorts = await bothListeners(down);
  cookie = `bot_session=${webui.token}`;
  const operator = new HttpClient(`http://127.0.0.1:${webui.port}`, { localAddress: '127.0.0.250' });
  for (const [scope, set] of [
    ['read', (key: string) => (readKey = key)],
    ['admin', (key: string) => (adminKey = key)],
  ] as const) {
    const created = await operator.post('/keys', { cookie, body: { name: `eq-${scope}`, scope, expires: null } });
    expect(created.status, created.text).toBe(200);
    set(String(created.json?.['key']));
  }
});

afterAll(async () => {
  await Promise.all(listeners.map((server) => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))));
  await Promise.all([webui?.close(), down?.close()]);
  upstream?.server.close();
});

/** What a client acts on: the status, every header but Date (names lower-cased, in order of name), the body. */
function seen(raw: string, head: boolean) {
  const [answer] = parseRawResponses(raw, head);
  if (!answer) throw new Error(`no answer: ${raw.slice(0, 200)}`);
  const headers = [...answer.headers].filter(([name]) => name !== 'date').sort(([a], [b]) => a.localeCompare(b));
  return { status: answer.status, headers, body: answer.body };
}

/** What the upstream got, its client's address and the assertion's id and times set aside (each asserted on its own). */
function received(record: Received | undefined, from: string) {
  if (!record) return undefined;
  const { 'x-webui-assertion': assertion, 'x-forwarded-for': forwardedFor, connection: _pool, ...headers } = record.headers;
  expect(forwardedFor).toBe(from);
  let claims: Record<string, unknown> | undefined;
  if (typeof assertion === 'string') {
    const { jti, iat, exp, ...rest } = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(jti).toEqual(expect.any(String));
    expect(exp).toBe((iat as number) + 60);
    claims = rest;
  }
  return { method: record.method, url: record.url, headers, claims, bodyBytes: record.bodyBytes };
}

/** `head` sent both ways from fresh addresses; the two answers and the two upstream records. */
async function bothWays(request: string, head = '', to = ports) {
  const method = request.split(' ')[0] ?? '';
  const results = [];
  for (const port of [to.fast, to.app]) {
    const from = `127.0.0.${nextAddress++}`;
    upstream.received.length = 0;
    const raw = await rawExchange(port, `${request} HTTP/1.1\r\nHost: 127.0.0.1:8001\r\n${head}`, '', from);
    results.push({ answer: seen(raw, method === 'HEAD'), upstream: received(upstream.received[0], from) });
  }
  return { fast: results[0]!, app: results[1]! };
}

const CASES: Array<[name: string, request: string, head: () => string, status: number, takes: boolean]> = [
  ['a good cookie', 'GET /api/webui/config/bot', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['an admin key', 'GET /api/webui/config/bot', () => `Authorization: Bearer ${adminKey}\r\n`, 200, true],
  ['a read key', 'GET /api/webui/config/bot', () => `Authorization: Bearer ${readKey}\r\n`, 200, true],
  ['no credential', 'GET /api/webui/config/bot', () => '', 401, true],
  ['a wrong cookie', 'GET /api/webui/config/bot', () => 'Cookie: bot_session=wrong\r\n', 401, true],
  ['a wrong bearer', 'GET /api/webui/config/bot', () => 'Authorization: Bearer wk_wrong\r\n', 401, true],
  ['a cookie and a bearer', 'GET /api/webui/config/bot', () => `Cookie: ${cookie}\r\nAuthorization: Bearer ${readKey}\r\n`, 400, true],
  ['a public path without a credential', 'GET /api/webui/version-compatibility', () => '', 200, true],
  ['a public prefix with a query', 'GET /assets/app.js?v=3&x=%20y', () => '', 200, true],
  ['a query string', 'GET /api/webui/config/bot?a=1&b=two,three:four', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['HEAD', 'HEAD /api/webui/config/bot', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['an early hint before the answer', 'GET /api/webui/hint', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['an upstream 404', 'GET /api/webui/missing', () => `Cookie: ${cookie}\r\n`, 404, true],
  ['a chunked answer with its own caching', 'GET /api/webui/chunked', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['a large answer', 'GET /api/webui/big', () => `Cookie: ${cookie}\r\n`, 200, true],
  ['the upstream refusing our credential', 'GET /api/webui/refuse', () => `Cookie: ${cookie}\r\n`, 502, true],
  ['the upstream cutting the connection', 'GET /api/webui/reset', () => `Cookie: ${cookie}\r\n`, 502, true],
  ['the upstream too slow', 'GET /api/webui/slow', () => `Cookie: ${cookie}\r\n`, 504, true],
  [
    'hop-by-hop and odd headers',
    'GET /api/webui/config/bot',
    () =>
      `Cookie: ${cookie}; theme=dark\r\nCookie: other=1\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: timeout=5\r\n` +
      'TE: trailers\r\nUpgrade: h2c\r\nProxy-Authorization: Basic eA==\r\nX_Under: 1\r\nX-Multi: a\r\nx-multi: b\r\nAccept: */*\r\n',
    200,
    true,
  ],
  [
    'X-Forwarded-* and identity spoofing',
    'GET /api/webui/config/bot',
    () =>
      `Cookie: ${cookie}\r\nX-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Host: evil\r\nX-Forwarded-Proto: https\r\nForwarded: for=6.6.6.6\r\n` +
      'X-Real-IP: 6.6.6.6\r\nX-WebUI-Principal: session\r\nX-WebUI-Scope: admin\r\nX-Original-URL: /admin\r\nX-HTTP-Method-Override: DELETE\r\n',
    200,
    true,
  ],
  // Left to the app by the fast path; the two must still agree.
  ['a read key doing a write', 'DELETE /api/webui/config/bot', () => `Authorization: Bearer ${readKey}\r\n`, 403, false],
  [
    'a foreign Origin on a state change',
    'POST /api/webui/config/bot',
    () => `Cookie: ${cookie}\r\nOrigin: https://evil.example\r\nContent-Length: 0\r\n`,
    403,
    false,
  ],
  ['an Origin on a read', 'GET /api/webui/config/bot', () => `Cookie: ${cookie}\r\nOrigin: http://127.0.0.1:8001\r\n`, 200, false],
  ['an encoded slash', 'GET /api/webui/a%2Fb', () => `Cookie: ${cookie}\r\n`, 400, false],
  ['an encoded backslash', 'GET /api/webui/a%5Cb', () => `Cookie: ${cookie}\r\n`, 400, false],
  // Resolved by URL parsing before anything judges it (to /api/webui/b), both ways.
  ['an encoded dot segment', 'GET /api/webui/a/%2e%2e/b', () => `Cookie: ${cookie}\r\n`, 200, false],
  ['a quote in the query', "GET /api/webui/config/bot?q='x'", () => `Cookie: ${cookie}\r\n`, 200, false],
  ['an empty query', 'GET /api/webui/config/bot?', () => `Cookie: ${cookie}\r\n`, 200, false],
  ['a GET with a body', 'GET /api/webui/config/bot', () => `Cookie: ${cookie}\r\nContent-Length: 0\r\n`, 200, false],
  ['a path of this server', 'GET /api/webui/health', () => '', 200, false],
  ['two Hosts', 'GET /api/webui/config/bot', () => `Cookie: ${cookie}\r\nHost: evil.example\r\n`, 400, false],
];

describe('a forwarded read: the Node fast path and the Hono route give the same answer and send the same request', () => {
  it('is on: the running server hands its listener a forward shortcut', () => {
    expect(webui.running.webui.forwardShortcut()).toBeDefined();
  });

  it.each(CASES)('with %s', async (_name, request, head, status, takes) => {
    const target = request.split(' ')[1] ?? '';
    const before = taken.filter((one) => one === target).length;
    const { fast, app } = await bothWays(request, head());
    expect(fast).toEqual(app);
    expect(fast.answer.status).toBe(status);
    expect(taken.filter((one) => one === target).length - before, 'taken by the fast path').toBe(takes ? 1 : 0);
  });

  it('with the upstream down: the same 502', async () => {
    const { fast, app } = await bothWays('GET /api/webui/config/bot', `Cookie: bot_session=${down.token}\r\n`, downPorts);
    expect(fast).toEqual(app);
    expect(fast.answer.status).toBe(502);
  });

  it('with wrong cookies until a ban: each counted alike, the same 429 and Retry-After, then for a good cookie too', async () => {
    const answers: { fast: string[]; app: string[] } = { fast: [], app: [] };
    const from = { fast: `127.0.0.${nextAddress++}`, app: `127.0.0.${nextAddress++}` };
    for (let n = 0; n < 7; n++)
      for (const way of ['fast', 'app'] as const) {
        const raw = await rawExchange(
          ports[way],
          `GET /api/webui/config/bot HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nCookie: bot_session=w${n}\r\n`,
          '',
          from[way],
        );
        answers[way].push(JSON.stringify(seen(raw, false)));
      }
    for (const way of ['fast', 'app'] as const) {
      const raw = await rawExchange(
        ports[way],
        `GET /api/webui/config/bot HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nCookie: ${cookie}\r\n`,
        '',
        from[way],
      );
      answers[way].push(JSON.stringify(seen(raw, false)));
    }
    expect(answers.fast).toEqual(answers.app);
    expect(JSON.parse(answers.fast.at(-1)!)).toMatchObject({ status: 429 });
  });
});
