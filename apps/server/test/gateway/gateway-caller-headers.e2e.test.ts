import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type RecordedRequest, type StandInUpstream } from '../harness/stand-in-upstream.js';

/**
 * Caller headers an upstream could believe, through the real server to the stand-in upstream (issue 42, items 5 and 7):
 * a header name holding `_` (a WSGI or CGI upstream reads `X_Real_IP` as HTTP_X_REAL_IP, the very variable `X-Real-IP`
 * gives it) never arrives; the whole X-Forwarded-* family is this server's (it sets -For, -Proto and -Host), and the other
 * headers frameworks read as the client's address, the request's URL or its method are dropped. Everything else passes.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const CONFIG_BOT = '/api/webui/config/bot';
const CLIENT_ADDRESS = '127.0.0.41';

/** Underscore spellings of what only this server may say (item 5). */
const UNDERSCORED = {
  X_Real_IP: '6.6.6.6',
  X_Forwarded_For: '6.6.6.6',
  X_Forwarded_Proto: 'https',
  X_WebUI_Scope: 'admin',
  'X-WebUI_Scope': 'admin',
  x_webui_principal: 'session',
  'X-Forwarded_Host': 'evil.example',
  Authorization_: 'Bearer forged',
  X_Anything: 'underscored',
};

/** Headers an upstream may trust that a caller must not set (item 7). */
const CLAIMS = {
  'X-Forwarded-Port': '1',
  'X-Forwarded-Prefix': '/admin',
  'X-Forwarded-Server': 'evil.example',
  'X-Forwarded-Ssl': 'on',
  'X-Forwarded-Scheme': 'https',
  'X-Forwarded-Method': 'DELETE',
  'X-Original-URL': '/admin/delete',
  'X-Rewrite-URL': '/admin/delete',
  'X-HTTP-Method-Override': 'DELETE',
  'X-HTTP-Method': 'DELETE',
  'X-Method-Override': 'DELETE',
  'X-Client-IP': '6.6.6.6',
  'True-Client-IP': '6.6.6.6',
};

describe('caller headers on forwarded requests', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;
  let key: string;
  const client = () => new HttpClient(gateway.server.baseUrl, { localAddress: CLIENT_ADDRESS, prefix: '' });

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
    const created = await gateway.operator.post('/api/webui/keys', { body: { name: 'reader', scope: 'read', expires: null } });
    key = String(created.json?.['key']);
  });

  beforeEach(() => {
    upstream.received.length = 0;
  });

  /** What the stand-in received: no underscore name, none of the claims, and this server's own forwarding headers. */
  function expectOnlyOurClaims(recorded: RecordedRequest, scope: string): void {
    expect(Object.keys(recorded.headers).filter((name) => name.includes('_'))).toEqual([]);
    for (const name of Object.keys(CLAIMS)) expect(recorded.headers, name).not.toHaveProperty(name.toLowerCase());
    expect(JSON.stringify(recorded.headers)).not.toContain('6.6.6.6');
    expect(recorded.headers).toMatchObject({
      'x-forwarded-for': CLIENT_ADDRESS,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': `127.0.0.1:${gateway.server.port}`,
      'x-webui-scope': scope,
      'x-kept': 'yes',
    });
    expect(
      Object.keys(recorded.headers)
        .filter((name) => name.startsWith('x-forwarded-'))
        .sort(),
    ).toEqual(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);
  }

  it('a read key GET: underscore spellings and the claims never arrive; its own header and our forwarding headers do', async () => {
    const answer = await client().get(CONFIG_BOT, {
      headers: { authorization: `Bearer ${key}`, ...UNDERSCORED, ...CLAIMS, 'X-Kept': 'yes' },
    });
    expect(answer.status, answer.text).toBe(200);
    const [forwarded] = upstream.requestsTo(CONFIG_BOT) as [RecordedRequest];
    expect(forwarded.method).toBe('GET');
    expectOnlyOurClaims(forwarded, 'read');
  });

  it('the session POST with a body: the same rule on the streamed path', async () => {
    const answer = await gateway.operator.post(CONFIG_BOT, {
      body: { bot: { nickname: 'Headers' } },
      headers: { ...UNDERSCORED, ...CLAIMS, 'X-Kept': 'yes' },
    });
    expect(answer.status, answer.text).toBe(200);
    const [forwarded] = upstream.requestsTo(CONFIG_BOT) as [RecordedRequest];
    expect(forwarded.method).toBe('POST');
    expect(forwarded.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(Object.keys(forwarded.headers).filter((name) => name.includes('_'))).toEqual([]);
    for (const name of Object.keys(CLAIMS)) expect(forwarded.headers, name).not.toHaveProperty(name.toLowerCase());
    expect(forwarded.headers).toMatchObject({ 'x-webui-scope': 'admin', 'x-kept': 'yes' });
  });

  it('a public path without a credential: the same rule', async () => {
    const answer = await client().get('/api/webui/version-compatibility?webui_version=1.7.1', {
      headers: { ...UNDERSCORED, ...CLAIMS, 'X-Kept': 'yes' },
    });
    expect(answer.status, answer.text).toBe(200);
    expectOnlyOurClaims(upstream.requestsTo('/api/webui/version-compatibility')[0] as RecordedRequest, 'none');
  });
});
