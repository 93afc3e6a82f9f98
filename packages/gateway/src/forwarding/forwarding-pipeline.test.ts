import { describe, expect, it } from 'vitest';
import {
  createTestApp,
  DEFAULT_HOST,
  DEFAULT_PEER,
  expectErrorBody,
  json,
  LISTEN_ORIGIN,
  type TestApp,
} from '../testing/gateway-test-app.js';
import type { UpstreamOptions } from '../upstream-options.js';

/** What the upstream received: each request as it arrived, its body read. */
interface Received {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** An upstream as a transport that records every request and answers 200 with JSON (or what `answer` makes). */
function recordingUpstream(answer: (request: Request) => Response | Promise<Response> = () => Response.json({ from: 'upstream' })) {
  const received: Received[] = [];
  const transport = async (request: Request): Promise<Response> => {
    received.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    return answer(request);
  };
  return { received, transport };
}

const UPSTREAM_ORIGIN = 'http://127.0.0.1:8002';
const SECRET_COOKIE = 'maibot_session=the-upstreams-own-secret';

function upstreamOptions(transport: UpstreamOptions['transport'], over: Partial<UpstreamOptions> = {}): UpstreamOptions {
  return {
    origin: UPSTREAM_ORIGIN,
    paths: ['/api/webui', '/api/chat'],
    publicPaths: ['/api/webui/version-compatibility', '/assets/*'],
    headers: { Cookie: SECRET_COOKIE },
    timeoutMs: 30_000,
    transport,
    assertion: (identity, request) => `signed:${identity.principal}:${identity.scope}:${request.method} ${request.path}`,
    ...over,
  };
}

async function gateway(over: Partial<UpstreamOptions> = {}, answer?: Parameters<typeof recordingUpstream>[0]) {
  const upstream = recordingUpstream(answer);
  const t = await createTestApp({ upstream: upstreamOptions(upstream.transport, over) });
  return { t, received: upstream.received };
}

const counted = (t: TestApp) => t.audit.named('login_failed').filter((event) => event.counted);

describe('a forwarded request passes the whole pipeline first; refused, it never reaches the upstream', () => {
  it('401 without a credential, on forwarded paths inside and outside the prefix, whatever the method', async () => {
    const { t, received } = await gateway();
    await expectErrorBody(await t.request('/config/bot'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('//api/chat/sessions'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('//api/chat', { method: 'POST', json: {} }), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/plugins/x', { method: 'PUT', json: {} }), 401, 'not_authenticated');
    expect(received).toEqual([]);
  });

  it('a wrong cookie counts as a guess: the fifth bans, then 429 even with the right one; nothing reached', async () => {
    const { t, received } = await gateway();
    for (let i = 0; i < 4; i++) await expectErrorBody(await t.request('//api/chat/x', { cookie: `wrong-${i}` }), 401, 'invalid_session');
    await expectErrorBody(await t.request('/config/bot', { cookie: 'wrong-4' }), 429, 'too_many_attempts');
    expect(counted(t)).toHaveLength(5);
    expect(t.audit.named('ban_started')).toEqual([expect.objectContaining({ address: DEFAULT_PEER })]);
    const good = await t.login(t.token, { peer: '127.0.0.6' });
    await expectErrorBody(await t.request('//api/chat/x', { cookie: good }), 429, 'too_many_attempts');
    expect(received).toEqual([]);
  });

  it('a wrong bearer counts too', async () => {
    const { t, received } = await gateway();
    await expectErrorBody(await t.request('/config/bot', { bearer: 'not-a-key' }), 401, 'invalid_credentials');
    expect(counted(t)).toEqual([expect.objectContaining({ how: 'bearer' })]);
    expect(received).toEqual([]);
  });

  it('a read key may GET and HEAD, never change anything, OPTIONS included (403 insufficient_scope)', async () => {
    const { t, received } = await gateway();
    const key = await t.createKey('viewer', 'read');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const body = await expectErrorBody(await t.request('/config/bot', { method, bearer: key, json: {} }), 403, 'insufficient_scope');
      expect(body.required).toBe('admin');
    }
    expect(received).toEqual([]);
    expect((await t.request('/config/bot', { bearer: key })).status).toBe(200);
    expect((await t.request('/config/bot', { method: 'HEAD', bearer: key })).status).toBe(200);
    expect(received.map((r) => [r.method, r.headers.get('x-webui-principal'), r.headers.get('x-webui-scope')])).toEqual([
      ['GET', 'key:viewer', 'read'],
      ['HEAD', 'key:viewer', 'read'],
    ]);
  });

  it('CSRF: a state change from a foreign origin or site is refused with a good cookie', async () => {
    const { t, received } = await gateway();
    const cookie = await t.login();
    const origin = { origin: 'https://evil.example' };
    await expectErrorBody(
      await t.request('//api/chat/send', { method: 'POST', json: {}, cookie, headers: origin }),
      403,
      'origin_not_allowed',
    );
    const site = { 'sec-fetch-site': 'cross-site' };
    await expectErrorBody(await t.request('/config/bot', { method: 'DELETE', cookie, headers: site }), 403, 'cross_site_request');
    expect(received).toEqual([]);
    // The dashboard's own origin passes.
    expect((await t.request('//api/chat/send', { method: 'POST', json: {}, cookie, headers: { origin: LISTEN_ORIGIN } })).status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('a path the upstream could read as another: 400 invalid_path for a credential, 401 without one; nothing reached', async () => {
    const { t, received } = await gateway();
    const key = await t.createKey('viewer', 'read');
    for (const path of ['/x%2f..%2fadmin', '/x%2F', '/x%5c..%5cadmin', '/x%5C', '/x%00', '//api/chat/a%2fb'])
      await expectErrorBody(await t.request(path, { bearer: key }), 400, 'invalid_path');
    await expectErrorBody(await t.request('/x%2f..%2fadmin', { method: 'POST', bearer: t.token, json: {} }), 400, 'invalid_path');
    await expectErrorBody(await t.request('/x%2f..%2fadmin'), 401, 'not_authenticated');
    expect(received).toEqual([]);
    expect(t.audit.named('upstream_request')).toEqual([]);
  });

  it('the edge still refuses a foreign Host and an address outside allowed_ips', async () => {
    const upstream = recordingUpstream();
    const t = await createTestApp({ upstream: upstreamOptions(upstream.transport), policy: { allowedIps: ['127.0.0.5/32'] } });
    const cookie = await t.login();
    await expectErrorBody(await t.request('/config/bot', { cookie, host: 'evil.example' }), 403, 'host_not_allowed');
    await expectErrorBody(await t.request('/config/bot', { cookie, peer: '127.0.0.9' }), 403, 'ip_not_allowed');
    expect(upstream.received).toEqual([]);
  });
});

describe('what the upstream receives', () => {
  it('method, path and query unchanged, the body, and the caller only as this server tells it', async () => {
    const { t, received } = await gateway();
    const cookie = await t.login();
    const res = await t.request('//api/chat/send?session=abc&x=%20y', {
      method: 'POST',
      json: { text: 'hello' },
      cookie,
      headers: {
        'x-webui-principal': 'key:root',
        'x-webui-scope': 'admin',
        'X-WebUI-Assertion': 'forged',
        'x-webui-anything': 'forged',
        'x-forwarded-for': '198.51.100.66',
        'x-forwarded-host': 'forged.example',
        'x-forwarded-proto': 'https',
        forwarded: 'for=198.51.100.66',
        'x-real-ip': '198.51.100.66',
        connection: 'keep-alive, x-hop',
        'x-hop': 'per-connection',
        'x-kept': 'end-to-end',
        'accept-language': 'zh-CN',
      },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ from: 'upstream' });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`${UPSTREAM_ORIGIN}/api/chat/send?session=abc&x=%20y`);
    expect(request?.body).toBe('{"text":"hello"}');
    const headers = Object.fromEntries(request?.headers ?? []);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-kept': 'end-to-end',
      'accept-language': 'zh-CN',
      // The configured Cookie wins: our bot_session never travels.
      cookie: SECRET_COOKIE,
      'x-forwarded-for': DEFAULT_PEER,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': DEFAULT_HOST,
      'x-webui-principal': 'session',
      'x-webui-scope': 'admin',
      'x-webui-assertion': 'signed:session:admin:POST /api/chat/send',
    });
    for (const name of ['authorization', 'host', 'forwarded', 'x-real-ip', 'connection', 'x-hop', 'x-webui-anything'])
      expect(headers, name).not.toHaveProperty(name);
    expect(JSON.stringify(headers)).not.toContain(cookie);
    expect(JSON.stringify(headers)).not.toContain('forged');
  });

  it("other cookies stay, the caller's bot_session goes; without other cookies the Cookie header goes", async () => {
    const { t, received } = await gateway({ headers: { 'X-Upstream-Key': 'configured' } });
    const cookie = await t.login();
    await t.request('/config/bot', { headers: { cookie: `theme=dark; bot_session=${cookie}; lang=en` } });
    await t.request('/config/bot', { cookie });
    expect(received.map((r) => r.headers.get('cookie'))).toEqual(['theme=dark; lang=en', null]);
    expect(received.map((r) => r.headers.get('x-upstream-key'))).toEqual(['configured', 'configured']);
  });

  it('an API key: its name and scope, never the key; HTTPS is told as X-Forwarded-Proto; no assertion without a signer', async () => {
    const { t, received } = await gateway({ assertion: undefined });
    const key = await t.createKey('ci', 'admin');
    expect((await t.request('/plugins/install', { method: 'POST', json: { id: 1 }, bearer: key, tls: true })).status).toBe(200);
    const headers = Object.fromEntries(received[0]?.headers ?? []);
    expect(headers).toMatchObject({ 'x-webui-principal': 'key:ci', 'x-webui-scope': 'admin', 'x-forwarded-proto': 'https' });
    expect(headers).not.toHaveProperty('authorization');
    expect(headers).not.toHaveProperty('x-webui-assertion');
    expect(JSON.stringify(headers)).not.toContain(key);
  });

  it('bodies past the 16 KiB limit of our own endpoints go through whole', async () => {
    const { t, received } = await gateway();
    const cookie = await t.login();
    const big = JSON.stringify({ text: 'x'.repeat(200_000) });
    const res = await t.request('/config/bot', { method: 'PUT', cookie, body: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(received[0]?.body).toBe(big);
    // Our own endpoints keep the limit.
    await expectErrorBody(await t.request('/setup/complete', { method: 'POST', cookie, body: big }), 413, 'payload_too_large');
  });
});

describe('public forwarded paths', () => {
  it('GET and HEAD reach the upstream without a credential, as anonymous; other methods need one', async () => {
    const { t, received } = await gateway();
    const res = await t.request('/version-compatibility');
    expect(res.status).toBe(200);
    expect((await t.request('//assets/app.js', { method: 'HEAD' })).status).toBe(404); // not under a forwarded prefix
    expect(received.map((r) => [r.method, r.url, r.headers.get('x-webui-principal'), r.headers.get('x-webui-scope')])).toEqual([
      ['GET', `${UPSTREAM_ORIGIN}/api/webui/version-compatibility`, 'anonymous', 'none'],
    ]);
    expect(received[0]?.headers.get('x-webui-assertion')).toBe('signed:anonymous:none:GET /api/webui/version-compatibility');
    await expectErrorBody(await t.request('/version-compatibility', { method: 'POST', json: {} }), 401, 'not_authenticated');
    expect(received).toHaveLength(1);
  });

  it('ignore credentials entirely: a wrong cookie counts nothing and still never travels', async () => {
    const { t, received } = await gateway();
    for (let i = 0; i < 10; i++) expect((await t.request('/version-compatibility', { cookie: `wrong-${i}` })).status).toBe(200);
    expect(t.audit.named('login_failed')).toEqual([]);
    expect(received.every((r) => r.headers.get('cookie') === SECRET_COOKIE)).toBe(true);
  });

  it('a public prefix (`/assets/*`) under a forwarded path; an encoded separator is never public', async () => {
    const { t, received } = await gateway({ paths: ['/'] });
    expect((await t.request('//assets/app.js')).status).toBe(200);
    await expectErrorBody(await t.request('//assets/..%2Fapi%2Fwebui%2Fconfig'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('//assets/..%5Capi'), 401, 'not_authenticated');
    expect(received.map((r) => r.url)).toEqual([`${UPSTREAM_ORIGIN}/assets/app.js`]);
  });
});

describe("this server's own endpoints are never forwarded", () => {
  it('its routes answer, whatever the method, with or without a trailing slash; the channel and the docs stay ours', async () => {
    const { t, received } = await gateway();
    const cookie = await t.login();
    expect(await json(await t.request('/auth/check', { cookie }))).toMatchObject({ authenticated: true });
    expect((await t.request('/setup/status', { cookie })).status).toBe(200);
    expect((await t.request('/openapi.json')).status).toBe(200);
    await expectErrorBody(await t.request('/auth/check', { method: 'PUT', cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('/keys/', { cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('/ws', { cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('/docs/x', { cookie }), 404, 'not_found');
    expect(received).toEqual([]);
  });

  it('with `/` forwarded, the whole site goes upstream except the API', async () => {
    const { t, received } = await gateway({ paths: ['/'], publicPaths: [] });
    const cookie = await t.login();
    await expectErrorBody(await t.request('//'), 401, 'not_authenticated');
    // A path as long as the prefix, ending like one of our public endpoints, is not one of them.
    await expectErrorBody(await t.request('//aaaaaaaaa/health'), 401, 'not_authenticated');
    expect((await t.request('//index.html', { cookie })).status).toBe(200);
    expect((await t.request('//api/anything/else', { cookie })).status).toBe(200);
    expect((await t.request('/health')).status).toBe(200);
    expect(received.map((r) => r.url)).toEqual([`${UPSTREAM_ORIGIN}/index.html`, `${UPSTREAM_ORIGIN}/api/anything/else`]);
  });
});

describe('paths outside webui.upstream.paths answer as without an upstream', () => {
  it('404 for a path outside, a prefix matched by whole segments only', async () => {
    const { t, received } = await gateway({ paths: ['/api/chat'] });
    const cookie = await t.login();
    await expectErrorBody(await t.request('//api/chatx', { cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('//api/other/health', { cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('//nope'), 404, 'not_found');
    // Under the prefix but not forwarded: the default deny, then 404.
    await expectErrorBody(await t.request('/config/bot'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/bot', { cookie }), 404, 'not_found');
    expect((await t.request('//api/chat/x', { cookie })).status).toBe(200);
    expect(received.map((r) => r.url)).toEqual([`${UPSTREAM_ORIGIN}/api/chat/x`]);
  });

  it('an upstream path holding Hono pattern syntax is a startup error naming the key', async () => {
    await expect(gateway({ paths: ['/api/:id'] })).rejects.toThrow(/webui\.upstream\.paths/);
  });
});
