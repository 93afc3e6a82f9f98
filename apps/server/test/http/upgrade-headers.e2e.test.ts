import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HttpClient } from '../harness/clients/http-client.js';
import { parseRawResponses, rawExchange, type RawResponse } from '../harness/clients/raw-exchange.js';
import { cleanupServers, defaultLauncher, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * Requests that carry upgrade headers (`Connection: upgrade` + `Upgrade: ...`), over raw sockets
 * against the real server (docs/decisions/0013-websocket-channel.md): on any path but the WebSocket channel they are answered
 * exactly as the same request without them, every guard applied; a handshake the channel cannot take
 * is refused with a 4xx and the error body (docs/decisions/0001-error-bodies.md), without spending its ticket.
 */

afterAll(cleanupServers);

const UPGRADE_H2C = 'Connection: upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n';
const HANDSHAKE =
  'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
// Deno's own HTTP layer answers an upgrade request that announces a body with an empty 400 before
// any handler runs (it would not know where the body ends after a switch): nothing the app can change.
const RUNTIME_REFUSES_UPGRADE_WITH_BODY = defaultLauncher.name === 'deno';

/** One answer to a raw request, as a client acts on it: status, the headers that matter, the JSON body. */
async function answer(port: number, head: string, body = ''): Promise<RawResponse & { json: unknown }> {
  const responses = parseRawResponses(await rawExchange(port, head, body), false);
  expect(responses, `one answer to ${JSON.stringify(head)}`).toHaveLength(1);
  const [response] = responses as [RawResponse];
  const json: unknown = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(response.body) : undefined;
  return { ...response, json };
}

/** What two answers must share to be "the same": status, body, and the headers a client acts on. */
function essentials(response: RawResponse & { json: unknown }) {
  const header = (name: string) => response.headers.get(name) ?? null;
  return {
    status: response.status,
    json: response.json,
    contentType: header('content-type'),
    cacheControl: header('cache-control'),
    retryAfter: header('retry-after'),
    setCookie: header('set-cookie'),
  };
}

function expectD1(response: RawResponse & { json: unknown }, status: number, code: string): void {
  expect(response.status, response.body).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.json).toEqual({ detail: expect.stringMatching(/\S/), code });
}

/** Opens the channel with `ticket`; resolves once the server's system/ready event arrives. */
function openChannel(port: number, ticket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/webui/ws?token=${encodeURIComponent(ticket)}`);
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { op?: string; domain?: string; event?: string };
      if (message.op === 'event' && message.domain === 'system' && message.event === 'ready') {
        socket.terminate();
        resolve();
      }
    });
    socket.on('unexpected-response', (_request, response) => reject(new Error(`handshake refused: ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

describe(`upgrade headers on the real server (${defaultLauncher.name})`, () => {
  let server: ServerProcess;
  let cookie: string;
  const host = () => `Host: 127.0.0.1:${server.port}\r\n`;

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'] });
    cookie = `Cookie: bot_session=${readWebuiFile(server.dataDir).access_token}\r\n`;
  });

  /** The request with and without the upgrade headers: both answers, in that order. */
  async function withAndWithout(
    requestLine: string,
    headers: string,
    body = '',
  ): Promise<[ReturnType<typeof essentials>, ReturnType<typeof essentials>]> {
    const upgraded = essentials(await answer(server.port, `${requestLine}\r\n${host()}${UPGRADE_H2C}${headers}`, body));
    const plain = essentials(await answer(server.port, `${requestLine}\r\n${host()}${headers}`, body));
    return [upgraded, plain];
  }

  it.each([
    ['GET /health', 'GET /api/webui/health HTTP/1.1', () => '', 200],
    ['PUT /setup/status with a session', 'PUT /api/webui/setup/status HTTP/1.1', () => cookie, 404],
    ['POST /setup/complete with a session', 'POST /api/webui/setup/complete HTTP/1.1', () => cookie, 200],
    ['GET /setup/status with a session', 'GET /api/webui/setup/status HTTP/1.1', () => cookie, 200],
    ['GET /setup/status without a session', 'GET /api/webui/setup/status HTTP/1.1', () => '', 401],
    [
      'POST /setup/complete from a foreign Origin',
      'POST /api/webui/setup/complete HTTP/1.1',
      () => `${cookie}Origin: http://evil.example\r\n`,
      403,
    ],
    ['GET /auth/check with a session', 'GET /api/webui/auth/check HTTP/1.1', () => cookie, 200],
    ['POST /auth/logout', 'POST /api/webui/auth/logout HTTP/1.1', () => '', 200],
    ['GET of an unknown path', 'GET /api/webui/nope HTTP/1.1', () => '', 401],
  ])('%s: the same answer with Upgrade: h2c as without', async (_label, requestLine, headers, status) => {
    const [upgraded, plain] = await withAndWithout(requestLine, headers());
    expect(plain.status).toBe(status);
    expect(upgraded).toEqual(plain);
    if (status >= 400) expect(plain.json).toEqual({ detail: expect.stringMatching(/\S/), code: expect.stringMatching(/^[a-z_]+$/) });
  });

  it('a foreign Host is refused with the error body (docs/decisions/0001-error-bodies.md), upgrade headers or not', async () => {
    const upgraded = await answer(server.port, `GET /api/webui/health HTTP/1.1\r\nHost: evil.example\r\n${UPGRADE_H2C}`);
    expectD1(upgraded, 403, 'host_not_allowed');
    expect(essentials(upgraded)).toEqual(essentials(await answer(server.port, 'GET /api/webui/health HTTP/1.1\r\nHost: evil.example\r\n')));
  });

  it('Upgrade: websocket on another path is answered as the plain request', async () => {
    const upgraded = essentials(await answer(server.port, `GET /api/webui/health HTTP/1.1\r\n${host()}${HANDSHAKE}`));
    expect(upgraded).toEqual(essentials(await answer(server.port, `GET /api/webui/health HTTP/1.1\r\n${host()}`)));
    expect(upgraded.json).toMatchObject({ status: 'healthy' });
  });

  it.skipIf(RUNTIME_REFUSES_UPGRADE_WITH_BODY)('a login with a body and upgrade headers logs in as without them', async () => {
    const body = JSON.stringify({ token: readWebuiFile(server.dataDir).access_token });
    const framing = `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    const [upgraded, plain] = await withAndWithout('POST /api/webui/auth/verify HTTP/1.1', framing, body);
    expect(plain.json).toMatchObject({ valid: true });
    expect(upgraded).toEqual(plain);
  });

  it.runIf(RUNTIME_REFUSES_UPGRADE_WITH_BODY)('Deno refuses an upgrade request with a body itself, and nothing changes', async () => {
    const body = JSON.stringify({ token: 'wrong-guess' });
    const refused = await answer(
      server.port,
      `POST /api/webui/auth/verify HTTP/1.1\r\n${host()}${UPGRADE_H2C}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
      body,
    );
    expect(refused.status).toBe(400);
    expect(server.logs().filter((line) => line.msg === 'login failed')).toEqual([]);
  });

  describe('the WebSocket endpoint', () => {
    const ticket = async () => {
      const issued = await new HttpClient(server.baseUrl).get('/ws-token', { cookie: cookie.slice('Cookie: '.length, -2) });
      expect(issued.json).toMatchObject({ success: true });
      return String(issued.json?.['token']);
    };
    const wsLine = (ticketValue: string) => `GET /api/webui/ws?token=${encodeURIComponent(ticketValue)} HTTP/1.1\r\n`;

    it.each([
      ['Upgrade: h2c', UPGRADE_H2C, 426, 'upgrade_required'],
      ['Sec-WebSocket-Version: 8', HANDSHAKE.replace('Version: 13', 'Version: 8'), 426, 'unsupported_websocket_version'],
      ['no Sec-WebSocket-Version', HANDSHAKE.replace('Sec-WebSocket-Version: 13\r\n', ''), 426, 'unsupported_websocket_version'],
      ['a short Sec-WebSocket-Key', HANDSHAKE.replace('dGhlIHNhbXBsZSBub25jZQ==', 'c2hvcnQ='), 400, 'bad_websocket_key'],
      ['no Sec-WebSocket-Key', HANDSHAKE.replace(/Sec-WebSocket-Key: .*\r\n/, ''), 400, 'bad_websocket_key'],
    ])(
      '%s: refused with the error body (docs/decisions/0001-error-bodies.md), the ticket still good',
      async (_label, headers, status, code) => {
        const good = await ticket();
        const refused = await answer(server.port, `${wsLine(good)}${host()}${headers}`);
        expectD1(refused, status, code);
        if (code === 'unsupported_websocket_version') expect(refused.headers.get('sec-websocket-version')).toBe('13');
        await openChannel(server.port, good);
      },
    );

    it('an unknown ticket: 401 with the error body (docs/decisions/0001-error-bodies.md) on the upgrade itself', async () => {
      expectD1(await answer(server.port, `${wsLine('A'.repeat(43))}${host()}${HANDSHAKE}`), 401, 'unknown_ticket');
    });

    it('a foreign Origin: 403 with the error body (docs/decisions/0001-error-bodies.md), the ticket not spent', async () => {
      const good = await ticket();
      expectD1(await answer(server.port, `${wsLine(good)}${host()}${HANDSHAKE}Origin: http://evil.example\r\n`), 403, 'origin_not_allowed');
      await openChannel(server.port, good);
    });

    it('a POST with a WebSocket handshake is answered as the plain POST', async () => {
      const line = `POST /api/webui/ws HTTP/1.1\r\n`;
      const upgraded = essentials(await answer(server.port, `${line}${host()}${HANDSHAKE}`));
      expect(upgraded).toEqual(essentials(await answer(server.port, `${line}${host()}`)));
      expect(upgraded.status).toBeGreaterThanOrEqual(400);
    });
  });

  it('the server logged no error through all of it', () => {
    expect(server.logs().filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
  });
});

describe(`upgrade headers and webui.allowed_ips (${defaultLauncher.name})`, () => {
  it('a client outside allowed_ips gets 403 with the error body (docs/decisions/0001-error-bodies.md), upgrade headers or not', async () => {
    const server = await startServer({ args: ['--host', '127.0.0.1'], config: '[webui]\nallowed_ips = ["10.0.0.0/8"]\n' });
    const host = `Host: 127.0.0.1:${server.port}\r\n`;
    for (const head of [
      `GET /api/webui/health HTTP/1.1\r\n${host}${UPGRADE_H2C}`,
      `GET /api/webui/ws?token=x HTTP/1.1\r\n${host}${HANDSHAKE}`,
      `GET /api/webui/health HTTP/1.1\r\n${host}`,
    ]) {
      expectD1(await answer(server.port, head), 403, 'ip_not_allowed');
    }
  });
});
