import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { expectErrorBody } from '../harness/error-body.js';
import { parseRawResponses, rawExchange, type RawResponse } from '../harness/clients/raw-exchange.js';
import { cleanupServers, defaultLauncher, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

// Deno's own HTTP layer answers a request with two Host lines with an empty 400 before any handler
// runs: the refusal the app would give, without its error body (docs/decisions/0001-error-bodies.md), and nothing the app can change.
const RUNTIME_REFUSES_TWO_HOSTS = defaultLauncher.name === 'deno';

async function answer(port: number, head: string, body = ''): Promise<RawResponse> {
  const responses = parseRawResponses(await rawExchange(port, head, body), false);
  expect(responses, `one answer to ${JSON.stringify(head)}`).toHaveLength(1);
  return responses[0] as RawResponse;
}

describe('request headers the server does not guess about', () => {
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
  });

  it.each([
    ['/api/webui/health', 'Host: 127.0.0.1\r\nHost: evil.example\r\n'],
    ['/api/webui/health', 'Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n'],
    ['/api/webui/auth/check', 'Host: localhost\r\nHost: 127.0.0.1\r\n'],
    ['/api/webui/auth/check?', 'Host: 127.0.0.1\r\nHost: evil.example\r\n'],
    ['/', 'Host: 127.0.0.1\r\nHost: evil.example\r\n'],
  ])('two Host headers on %s (%j): 400 with the error body (docs/decisions/0001-error-bodies.md)', async (target, hosts) => {
    const response = await answer(server.port, `GET ${target} HTTP/1.1\r\n${hosts}Cookie: bot_session=${encodeURIComponent(token)}\r\n`);
    expect(response.status, response.body).toBe(400);
    if (RUNTIME_REFUSES_TWO_HOSTS) return;
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual({ detail: expect.stringMatching(/\S/), code: 'duplicate_host' });
  });

  it('two Host headers are refused off loopback too, where every single Host is served', async () => {
    const open = await startServer({ args: ['--host', '0.0.0.0'] });
    const response = await answer(open.port, 'GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n');
    expect(response.status, response.body).toBe(400);
    if (!RUNTIME_REFUSES_TWO_HOSTS) expect(JSON.parse(response.body)).toMatchObject({ code: 'duplicate_host' });
    expect((await answer(open.port, 'GET /api/webui/health HTTP/1.1\r\nHost: webui.example\r\n')).status).toBe(200);
  });

  it(
    'a login body labelled charset=utf-16 is refused 415 and logs nothing in; utf-8, in any case or quoted, and no ' + 'charset are read',
    async () => {
      const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.31' });
      const body = JSON.stringify({ token });
      for (const type of [
        'application/json; charset=utf-16',
        'application/json;charset=UTF-16LE',
        'application/json; charset=iso-8859-1',
        'application/json; charset=',
      ]) {
        const refused = await client.post('/auth/verify', { rawBody: body, headers: { 'content-type': type }, cookie: null });
        expectErrorBody(refused, 415, 'unsupported_charset');
        expect(refused.setCookie).toEqual([]);
      }
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'Application/JSON; Charset=UTF-8',
        'application/json; charset="utf-8"',
      ]) {
        const read = await client.post('/auth/verify', { rawBody: body, headers: { 'content-type': type }, cookie: null });
        expect(read.status, `${type}: ${read.text}`).toBe(200);
        expect(read.json).toMatchObject({ valid: true });
      }
    },
  );
});
