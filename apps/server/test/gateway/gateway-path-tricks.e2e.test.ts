import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { parseRawResponses, rawExchange, type RawResponse } from '../harness/clients/raw-exchange.js';
import { cleanupServers } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type StandInUpstream } from '../harness/stand-in-upstream.js';

/**
 * Forwarded paths an upstream could read as another path than the one this server judged (issue 42, items 8 and 9): a
 * public prefix stays public only for plain paths (no `;`, no dot segment after decoding, no encoded separator), and a
 * forwarded path holding %2F, %5C or %00 (or a dot segment a runtime left, as Deno leaves %2e%2e) is refused with 400,
 * whoever asks; none of them reaches the upstream.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const ASSETS = '/api/chat/assets';

describe('path tricks on forwarded paths', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;
  let reader: string;
  const stranger = () => new HttpClient(gateway.server.baseUrl, { localAddress: '127.0.0.51', prefix: '' });
  const withReader = () => ({ headers: { authorization: `Bearer ${reader}` }, cookie: null });

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({
      url: upstream.url,
      paths: ['/api/webui', '/api/chat'],
      publicPaths: ['/api/webui/version-compatibility', `${ASSETS}/*`],
    });
    const created = await gateway.operator.post('/api/webui/keys', { body: { name: 'reader', scope: 'read', expires: null } });
    reader = String(created.json?.['key']);
  });

  beforeEach(() => {
    upstream.received.length = 0;
  });

  /** The raw target as sent, on its own connection: the HTTP client would not send some of these as they are. */
  async function rawGet(target: string, headers = ''): Promise<RawResponse> {
    const raw = await rawExchange(gateway.server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${gateway.server.port}\r\n${headers}`);
    const [response] = parseRawResponses(raw, false) as [RawResponse];
    return response;
  }

  it('a plain path under the public prefix is forwarded without a credential, as before', async () => {
    const answer = await stranger().get(`${ASSETS}/app.js`);
    expect(answer.status, answer.text).toBe(404);
    expect(upstream.received.map((recorded) => recorded.url)).toEqual([`${ASSETS}/app.js`]);
  });

  it.each([
    `${ASSETS}/x/..;/secret`,
    `${ASSETS}/..;/secret`,
    `${ASSETS}/x;jsessionid=1/app.js`,
    `${ASSETS}/app.js;x`,
    `${ASSETS}/%2e%2e/secret`,
    `${ASSETS}/.%2E/secret`,
    `${ASSETS}/x%2f..%2f..%2fsecret`,
    `${ASSETS}/x%5C..%5Csecret`,
    `${ASSETS}/x%00.js`,
  ])('%s without a credential is not public: 401, and nothing arrives', async (target) => {
    const response = await rawGet(target);
    expect(response.status, `${target}: ${response.body}`).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'not_authenticated' });
    expect(upstream.received).toEqual([]);
  });

  it('the same in absolute form, where a runtime may leave the dot segments as they came', async () => {
    for (const path of [`${ASSETS}/%2e%2e/secret`, `${ASSETS}/x/..;/secret`]) {
      const response = await rawGet(`http://127.0.0.1:${gateway.server.port}${path}`);
      expect(response.status, `${path}: ${response.body}`).toBe(401);
    }
    expect(upstream.received).toEqual([]);
  });

  it.each([
    '/api/webui/x%2f..%2f..%2fadmin',
    '/api/webui/x%2F..%2F..%2Fadmin',
    '/api/webui/x%5c..%5c..%5cadmin',
    '/api/webui/x%5C..%5Cadmin',
    '/api/webui/x%00',
    '/api/chat/a%2fb',
    `${ASSETS}/x%2f..%2fsecret`,
    '/api/webui/version-compatibility%2f..%2fx',
  ])('%s with a read key: 400 with the error body (docs/decisions/0001-error-bodies.md), and nothing arrives', async (target) => {
    expectErrorBody(await stranger().get(target, withReader()), 400, 'invalid_path');
    expect(upstream.received).toEqual([]);
  });

  it('a dot segment left in the path is refused too, in origin and absolute form; nothing outside the prefixes arrives', async () => {
    for (const path of ['/api/webui/%2e%2e/%2e%2e/admin', '/api/chat/x/.%2e/.%2e/.%2e/admin', '/api/chat/%2e/ping']) {
      for (const target of [path, `http://127.0.0.1:${gateway.server.port}${path}`]) {
        const response = await rawGet(target, `Authorization: Bearer ${reader}\r\n`);
        // Where the runtime resolved them, the path is an ordinary one: not forwarded, or the upstream's own answer.
        if (response.status === 400) expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid_path' });
      }
    }
    for (const recorded of upstream.received) {
      expect(recorded.url).toMatch(/^\/api\/(webui|chat)\//);
      expect(recorded.url).not.toMatch(/%2e|\/\.\.?(\/|$)/i);
    }
  });

  it('the path check comes after the credential: without one, 401 as on every guarded path', async () => {
    expectErrorBody(await stranger().get('/api/webui/x%2f..%2fadmin'), 401, 'not_authenticated');
    expect(upstream.received).toEqual([]);
  });
});
