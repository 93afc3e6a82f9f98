import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { parseRawResponses, rawExchange, type RawResponse } from '../harness/clients/raw-exchange.js';
import { cleanupServers, defaultLauncher } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type StandInUpstream } from '../harness/stand-in-upstream.js';

/**
 * The request target in absolute form (`GET http://host/path HTTP/1.1`, RFC 9112 §3.2.2) with userinfo (issue 42, item 4):
 * RFC 9110 §4.2.4 makes a `user:password@` there an error; a web Request cannot even be built from such a URL. Every such
 * request answers 400 with the error body (docs/decisions/0001-error-bodies.md), on public and guarded paths, this server's own and forwarded ones alike; nothing
 * reaches the upstream and nothing is logged above info, the userinfo least of all.
 */

// Bun's server drops an absolute-form target's scheme and authority before the app sees the request: it is served as its
// origin form (`/path`), the userinfo gone with the authority, and no app can tell it was there.
const RUNTIME_DROPS_AUTHORITY = defaultLauncher.name === 'bun';

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const USERINFO = 'probe-user:probe-secret';
const INFO = 30;

async function exchange(port: number, head: string, body = ''): Promise<RawResponse> {
  const responses = parseRawResponses(await rawExchange(port, head, body), false);
  expect(responses, `one answer to ${JSON.stringify(head)}`).toHaveLength(1);
  return responses[0] as RawResponse;
}

describe('absolute-form request targets with userinfo', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;
  let authority: string;
  let host: string;

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
    authority = `127.0.0.1:${gateway.server.port}`;
    host = `Host: ${authority}\r\n`;
  });

  beforeEach(() => {
    upstream.received.length = 0;
  });

  it.each([
    ['GET', '/api/webui/version-compatibility?webui_version=1.7.1', 'a public forwarded path'],
    ['GET', '/api/webui/config/bot', 'a guarded forwarded path'],
    ['GET', '/api/webui/health', "this server's public endpoint"],
    ['GET', '/api/webui/auth/check', 'the session check'],
    ['GET', '/api/webui/setup/status', "this server's guarded endpoint"],
    ['HEAD', '/api/webui/health', 'a HEAD'],
    ['GET', '/', 'the site'],
  ])('%s %s (%s) with a user and password: 400 with the error body (docs/decisions/0001-error-bodies.md)', async (method, path) => {
    const before = gateway.server.logs().length;
    for (const userinfo of [USERINFO, 'probe-user', 'probe-user:']) {
      for (const scheme of ['http', 'https']) {
        const target = `${scheme}://${userinfo}@${authority}${path}`;
        const answer = parseRawResponses(
          await rawExchange(gateway.server.port, `${method} ${target} HTTP/1.1\r\n${host}`),
          method === 'HEAD',
        );
        expect(answer, target).toHaveLength(1);
        const [response] = answer as [RawResponse];
        expect(response.body).not.toContain('probe-user');
        if (RUNTIME_DROPS_AUTHORITY) {
          expect(response.status, `${target}: ${response.body}`).toBeLessThan(500);
          continue;
        }
        expect(response.status, `${target}: ${response.body}`).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        if (method !== 'HEAD') expect(JSON.parse(response.body)).toEqual({ detail: expect.stringMatching(/\S/), code: 'bad_request' });
      }
    }
    if (RUNTIME_DROPS_AUTHORITY) expect(JSON.stringify(upstream.received)).not.toContain('probe-user');
    else expect(upstream.received).toEqual([]);
    await expectNothingLoggedAboveInfoSince(before);
  });

  it('a login with a valid JSON body sent this way: 400 with the error body (docs/decisions/0001-error-bodies.md) and no session, however the body is framed', async () => {
    const before = gateway.server.logs().length;
    const body = JSON.stringify({ token: gateway.token });
    for (const framing of [`Content-Length: ${body.length}\r\n`, 'Transfer-Encoding: chunked\r\n']) {
      const sent = framing.startsWith('Transfer') ? `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` : body;
      const response = await exchange(
        gateway.server.port,
        `POST http://${USERINFO}@${authority}/api/webui/auth/verify HTTP/1.1\r\n${host}Content-Type: application/json\r\n${framing}`,
        sent,
      );
      if (RUNTIME_DROPS_AUTHORITY) {
        expect(response.status, response.body).toBe(200);
        continue;
      }
      expect(response.status, response.body).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ detail: expect.stringMatching(/\S/), code: 'bad_request' });
      expect(response.headers.get('set-cookie')).toBeUndefined();
    }
    await expectNothingLoggedAboveInfoSince(before);
  });

  it('the same targets without userinfo are served as before', async () => {
    expect((await exchange(gateway.server.port, `GET http://${authority}/api/webui/health HTTP/1.1\r\n${host}`)).status).toBe(200);
    const forwarded = await exchange(
      gateway.server.port,
      `GET http://${authority}/api/webui/version-compatibility?webui_version=1.7.1 HTTP/1.1\r\n${host}`,
    );
    expect(forwarded.status, forwarded.body).toBe(200);
    expect(upstream.requestsTo('/api/webui/version-compatibility')).toHaveLength(1);
  });

  it('the userinfo never appears in the output', () => {
    expect(gateway.server.stdout() + gateway.server.stderr()).not.toContain('probe-secret');
    expect(gateway.server.stdout() + gateway.server.stderr()).not.toContain('probe-user');
  });

  /** Nothing above info since log line `before`: a key's creation logs an info line after every probe's, so all of them were read. */
  async function expectNothingLoggedAboveInfoSince(before: number): Promise<void> {
    const name = `sentinel-${before}`;
    expect((await gateway.operator.post('/api/webui/keys', { body: { name, scope: 'read', expires: null } })).status).toBe(200);
    await gateway.server.waitForLog((line) => line.msg === 'API key created' && line['key'] === name);
    const loud = gateway.server
      .logs()
      .slice(before)
      .filter((line) => Number(line.level) > INFO && !String(line.msg).includes('without Secure'));
    expect(loud).toEqual([]);
  }
});
