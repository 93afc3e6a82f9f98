import { describe, expect, it } from 'vitest';
import { createTestApp, DEFAULT_PEER, expectErrorBody, json, RecordingLogger } from '../testing/gateway-test-app.js';
import type { UpstreamOptions, UpstreamTransport } from '../upstream-options.js';

const UPSTREAM_ORIGIN = 'http://127.0.0.1:8002';
const SECRET = 'the-upstreams-own-secret';

async function gateway(transport: UpstreamTransport, over: Partial<UpstreamOptions> = {}) {
  const upstream: UpstreamOptions = {
    origin: UPSTREAM_ORIGIN,
    paths: ['/api/webui', '/api/chat'],
    publicPaths: [],
    headers: { Cookie: `maibot_session=${SECRET}` },
    timeoutMs: 30_000,
    transport,
    ...over,
  };
  const t = await createTestApp({ upstream, logger: new RecordingLogger() });
  return { t, cookie: await t.login() };
}

/** A transport whose answer the test gives later, and which tells when the upstream request was aborted. */
function heldTransport() {
  const requests: Request[] = [];
  let arrived: () => void = () => undefined;
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  const transport: UpstreamTransport = (request) => {
    requests.push(request);
    arrived();
    return new Promise<Response>((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
  };
  return { requests, arrival, transport };
}

const warnings = (t: { logger: RecordingLogger }, code: string) =>
  t.logger.at('warn').filter((call) => (call.fields as { code?: string }).code === code);

describe('when the upstream fails, the caller gets an error answer (docs/decisions/0001-error-bodies.md), never a 500', () => {
  it('unreachable: 502 upstream_unavailable, one warning a minute with the cause and no secret', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const { t, cookie } = await gateway(() => Promise.reject(refused));
    for (let i = 0; i < 3; i++) await expectErrorBody(await t.request('/config/bot', { cookie }), 502, 'upstream_unavailable');
    expect(warnings(t, 'upstream_unavailable').map((call) => call.fields)).toEqual([
      { err: { name: 'TypeError', code: 'ECONNREFUSED' }, code: 'upstream_unavailable' },
    ]);
    t.harness.clock.advance(60_000);
    await t.request('/config/bot', { cookie });
    expect(warnings(t, 'upstream_unavailable')).toHaveLength(2);
    expect(t.logger.text()).not.toContain(SECRET);
    expect(t.logger.at('error')).toEqual([]);
  });

  it('a transport that throws at once is unreachable too', async () => {
    const { t, cookie } = await gateway(() => {
      throw new Error('no route');
    });
    await expectErrorBody(await t.request('//api/chat/x', { cookie }), 502, 'upstream_unavailable');
  });

  it('no answer head within the timeout: 504 upstream_timeout, and the upstream request is aborted', async () => {
    const held = heldTransport();
    const { t, cookie } = await gateway(held.transport, { timeoutMs: 5 });
    const body = await expectErrorBody(await t.request('/config/bot', { cookie }), 504, 'upstream_timeout');
    expect(body.detail).toContain('0.005 seconds');
    expect(held.requests[0]?.signal.aborted).toBe(true);
    expect(warnings(t, 'upstream_timeout')).toHaveLength(1);
  });

  it("the upstream's 401 (to the gateway's own credential) is 502 upstream_refused, never a 401 that logs the dashboard out", async () => {
    const { t, cookie } = await gateway(() => Promise.resolve(Response.json({ detail: 'not logged in' }, { status: 401 })));
    const body = await expectErrorBody(await t.request('/config/bot', { cookie }), 502, 'upstream_refused');
    expect(body.detail).toContain('webui.upstream.headers');
    await expectErrorBody(await t.request('/config/bot', { cookie }), 502, 'upstream_refused');
    const lines = warnings(t, 'upstream_refused');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toContain('webui.upstream.headers');
    expect(t.logger.text()).not.toContain(SECRET);
  });

  it('other upstream errors pass as they are (403, 404, 500 of its own)', async () => {
    let status = 403;
    const { t, cookie } = await gateway(() => Promise.resolve(Response.json({ detail: 'upstream says no' }, { status })));
    for (status of [403, 404, 500]) {
      const res = await t.request('/config/bot', { cookie });
      expect(res.status).toBe(status);
      expect(await json(res)).toEqual({ detail: 'upstream says no' });
    }
  });
});

describe("the upstream's answer", () => {
  it('status and headers pass; every Set-Cookie passes except one for our session cookie (one debug line)', async () => {
    const answer = () => {
      const headers = new Headers({ 'content-type': 'text/plain', 'x-upstream': 'yes', 'cache-control': 'max-age=60' });
      for (const line of ['theme=dark; Path=/', 'bot_session=evil; Path=/; HttpOnly', 'maibot_session=x; HttpOnly', 'bot_session_x=1'])
        headers.append('set-cookie', line);
      return Promise.resolve(new Response('created', { status: 201, headers }));
    };
    const { t, cookie } = await gateway(answer);
    const res = await t.request('//api/chat/x', { method: 'POST', cookie, json: {} });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('created');
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(res.headers.get('cache-control')).toBe('max-age=60');
    expect(res.headers.getSetCookie()).toEqual(['theme=dark; Path=/', 'maibot_session=x; HttpOnly', 'bot_session_x=1']);
    expect(t.logger.at('debug').filter((call) => call.message.includes('Set-Cookie'))).toHaveLength(1);
    expect(t.logger.text()).not.toContain('evil');
  });

  it('without Cache-Control of its own, the answer keeps no-store', async () => {
    const { t, cookie } = await gateway(() => Promise.resolve(new Response('x')));
    expect((await t.request('/config/bot', { cookie })).headers.get('cache-control')).toBe('no-store');
  });
});

describe('an aborted caller aborts the upstream request', () => {
  it('the signal the upstream request carries fires when the caller goes away', async () => {
    const held = heldTransport();
    const { t, cookie } = await gateway(held.transport);
    const caller = new AbortController();
    const answered = t.app.request(
      'http://127.0.0.1:8001/api/webui/config/bot',
      { headers: { host: '127.0.0.1:8001', cookie: `bot_session=${cookie}` }, signal: caller.signal },
      { peer: DEFAULT_PEER },
    );
    await held.arrival;
    expect(held.requests[0]?.signal.aborted).toBe(false);
    caller.abort();
    expect(held.requests[0]?.signal.aborted).toBe(true);
    expect((await answered).status).toBe(502);
    expect(warnings(t, 'upstream_unavailable')).toEqual([]);
  });
});

describe('the audit trail', () => {
  it('every forwarded state change (OPTIONS too) is one upstream_request event (principal, method, path without query, status); reads none', async () => {
    let status = 200;
    const { t, cookie } = await gateway(() =>
      status === 0 ? Promise.reject(new Error('down')) : Promise.resolve(new Response(null, { status })),
    );
    const key = await t.createKey('deploy', 'admin');
    await t.request('//api/chat/send?token=secret-in-query', { method: 'POST', cookie, json: {} });
    status = 204;
    await t.request('/plugins/x', { method: 'DELETE', bearer: key });
    status = 0;
    await t.request('/config/bot', { method: 'PUT', cookie, json: {} });
    status = 200;
    await t.request('/config/bot', { cookie });
    await t.request('/config/bot', { method: 'HEAD', cookie });
    await t.request('/config/bot', { method: 'OPTIONS', cookie });
    expect(t.audit.named('upstream_request')).toEqual([
      {
        event: 'upstream_request',
        address: DEFAULT_PEER,
        via: 'api',
        principal: 'session',
        method: 'POST',
        path: '/api/chat/send',
        status: 200,
      },
      {
        event: 'upstream_request',
        address: DEFAULT_PEER,
        via: 'api',
        principal: 'key:deploy',
        method: 'DELETE',
        path: '/api/webui/plugins/x',
        status: 204,
      },
      {
        event: 'upstream_request',
        address: DEFAULT_PEER,
        via: 'api',
        principal: 'session',
        method: 'PUT',
        path: '/api/webui/config/bot',
        status: 502,
      },
      {
        event: 'upstream_request',
        address: DEFAULT_PEER,
        via: 'api',
        principal: 'session',
        method: 'OPTIONS',
        path: '/api/webui/config/bot',
        status: 200,
      },
    ]);
    expect(JSON.stringify(t.audit.events)).not.toContain('secret-in-query');
  });

  it('a refused request is no upstream_request: it never reached the upstream', async () => {
    const { t } = await gateway(() => Promise.resolve(new Response(null)));
    await t.request('//api/chat/send', { method: 'POST', json: {} });
    expect(t.audit.named('upstream_request')).toEqual([]);
  });
});
