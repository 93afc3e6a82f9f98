import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json, LISTEN_ORIGIN } from '../../testing/test-app.js';

const DEV_SERVER = 'http://localhost:5173';
const FOREIGN = 'http://localhost:6666';

describe('Origin check against CSRF (docs/decisions/0009-csrf-and-dns-rebinding.md)', () => {
  it('refuses a cross-origin text/plain POST /auth/regenerate with 403 and keeps the token', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const cookie = await t.login();
    const res = await t.request('/auth/regenerate', {
      method: 'POST',
      cookie,
      body: 'x',
      headers: { 'content-type': 'text/plain', origin: FOREIGN },
    });
    await expectErrorBody(res, 403, 'origin_not_allowed');
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await json(await t.verify(t.token))).valid).toBe(true);
    expect(await json(await t.request('/setup/status', { cookie }))).toMatchObject({ token_source: 'temporary' });
  });

  it('refuses foreign origins on every state-changing endpoint, before anything happens', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await expectErrorBody(
      await t.request('/auth/update', { cookie, json: { new_token: 'Abcdefghi!' }, headers: { origin: FOREIGN } }),
      403,
      'origin_not_allowed',
    );
    await expectErrorBody(
      await t.request('/setup/complete', { method: 'POST', cookie, headers: { origin: FOREIGN } }),
      403,
      'origin_not_allowed',
    );
    const logout = await t.request('/auth/logout', { method: 'POST', cookie, headers: { origin: FOREIGN } });
    await expectErrorBody(logout, 403, 'origin_not_allowed');
    expect(logout.headers.getSetCookie()).toEqual([]);
    const login = await t.verify(t.token, { headers: { origin: 'null' } });
    await expectErrorBody(login, 403, 'origin_not_allowed');
    expect(login.headers.getSetCookie()).toEqual([]);
    expect(await t.harness.setup.isFirstSetup()).toBe(true);
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });

  it('allows a POST without Origin (scripts)', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    expect((await t.request('/setup/complete', { method: 'POST', cookie })).status).toBe(200);
  });

  it('allows the same origin: http:// plus the Host header the request addressed', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/setup/complete', {
      method: 'POST',
      cookie,
      host: 'localhost:8001',
      headers: { origin: 'http://localhost:8001' },
    });
    expect(res.status).toBe(200);
    // The same origin of another Host is not the same origin.
    await expectErrorBody(
      await t.request('/setup/reset', { method: 'POST', cookie, host: 'localhost:8001', headers: { origin: 'http://localhost:8002' } }),
      403,
      'origin_not_allowed',
    );
  });

  it('takes the scheme of the same origin from the transport', async () => {
    const t = await createTestApp({ policy: { trustedProxies: ['127.0.0.1'] } });
    const viaProxy = { peer: '127.0.0.1', host: 'localhost:8443' } as const;
    const cookie = await t.login(t.token, viaProxy);
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };
    expect(
      (await t.request('/setup/complete', { method: 'POST', cookie, ...viaProxy, headers: { ...https, origin: 'https://localhost:8443' } }))
        .status,
    ).toBe(200);
    await expectErrorBody(
      await t.request('/setup/reset', { method: 'POST', cookie, ...viaProxy, headers: { ...https, origin: 'http://localhost:8443' } }),
      403,
      'origin_not_allowed',
    );
    expect(
      (
        await t.request('/setup/reset', {
          method: 'POST',
          cookie,
          host: 'localhost:8443',
          tls: true,
          headers: { origin: 'https://localhost:8443' },
        })
      ).status,
    ).toBe(200);
  });

  it('allows the listen origins and webui.allowed_origins', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const cookie = await t.login();
    expect(
      (await t.request('/setup/complete', { method: 'POST', cookie, host: 'localhost:8001', headers: { origin: LISTEN_ORIGIN } })).status,
    ).toBe(200);
    expect((await t.request('/setup/reset', { method: 'POST', cookie, headers: { origin: DEV_SERVER } })).status).toBe(200);
    expect((await t.request('/setup/reset', { method: 'POST', cookie, headers: { origin: 'HTTP://LOCALHOST:5173' } })).status).toBe(200);
  });

  it('does not refuse a GET with a foreign Origin, but gives it no Access-Control-Allow-Origin', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/auth/check', { cookie, headers: { origin: FOREIGN } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ authenticated: true });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('echoes an allowed origin with credentials on a GET', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const res = await t.request('/health', { headers: { origin: DEV_SERVER } });
    expect(res.headers.get('access-control-allow-origin')).toBe(DEV_SERVER);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('answers a CORS preflight from an allowed origin with the origin echoed and credentials allowed', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const res = await t.request('/auth/verify', {
      method: 'OPTIONS',
      headers: { origin: DEV_SERVER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(DEV_SERVER);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/content-type/);
  });

  it('gives a CORS preflight from a foreign origin no Access-Control-Allow-Origin', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const res = await t.request('/auth/regenerate', {
      method: 'OPTIONS',
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('state changes without Origin: Sec-Fetch-Site decides (defence in depth)', () => {
  it('refuses POST /setup/reset with the cookie, no Origin and Sec-Fetch-Site: cross-site, changing nothing', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await t.harness.setup.complete();
    const res = await t.request('/setup/reset', { method: 'POST', cookie, headers: { 'sec-fetch-site': 'cross-site' } });
    await expectErrorBody(res, 403, 'cross_site_request');
    expect(await t.harness.setup.isFirstSetup()).toBe(false);
  });

  it('refuses same-site without a Referer or with a Referer of another origin, allows it with an allowed one', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const post = (headers: Record<string, string>) => t.request('/setup/complete', { method: 'POST', cookie, headers });
    await expectErrorBody(await post({ 'sec-fetch-site': 'same-site' }), 403, 'cross_site_request');
    await expectErrorBody(
      await post({ 'sec-fetch-site': 'same-site', referer: 'http://other.localhost:8001/page' }),
      403,
      'cross_site_request',
    );
    await expectErrorBody(await post({ 'sec-fetch-site': 'same-site', referer: 'not a url' }), 403, 'cross_site_request');
    expect(await t.harness.setup.isFirstSetup()).toBe(true);
    expect((await post({ 'sec-fetch-site': 'same-site', referer: `${LISTEN_ORIGIN}/setup` })).status).toBe(200);
  });

  it('lets same-origin, none and scripts (no browser headers) through; GET is never refused for it', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Array<Record<string, string>>) {
      expect((await t.request('/setup/complete', { method: 'POST', cookie, headers })).status).toBe(200);
    }
    expect((await t.request('/setup/status', { cookie, headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  it('keeps the Origin rule first: an allowed Origin passes whatever Sec-Fetch-Site says', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: [DEV_SERVER] } });
    const cookie = await t.login();
    expect(
      (await t.request('/setup/complete', { method: 'POST', cookie, headers: { origin: DEV_SERVER, 'sec-fetch-site': 'cross-site' } }))
        .status,
    ).toBe(200);
  });
});
