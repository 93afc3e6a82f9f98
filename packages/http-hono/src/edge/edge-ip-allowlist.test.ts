import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from '../testing/test-app.js';

describe('webui.allowed_ips (docs/decisions/0008-allowed-ips.md)', () => {
  it('answers 403 ip_not_allowed on every path to a client outside the list', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['10.0.0.0/8'] } });
    await expectErrorBody(await t.request('/health'), 403, 'ip_not_allowed');
    await expectErrorBody(await t.verify(t.token), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('/auth/check'), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('/ws-token'), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('/auth/logout', { method: 'POST' }), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('/nope'), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('//outside'), 403, 'ip_not_allowed');
    await expectErrorBody(
      await t.request('/auth/verify', { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:8001' } }),
      403,
      'ip_not_allowed',
    );
  });

  it('sets no cookie for a refused client even with the right token', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['10.0.0.0/8'] } });
    const res = await t.verify(t.token);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('admits clients inside the list, by CIDR or single address', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['10.0.0.0/8', '127.0.0.9'] } });
    expect(await json(await t.request('/health', { peer: '10.20.30.40' }))).toMatchObject({ status: 'healthy' });
    expect((await t.request('/health', { peer: '127.0.0.9' })).status).toBe(200);
    expect((await t.request('/health', { peer: '::ffff:10.1.1.1' })).status).toBe(200);
    await expectErrorBody(await t.request('/health', { peer: '127.0.0.10' }), 403, 'ip_not_allowed');
  });

  it('allows everybody when the list is empty', async () => {
    const t = await createTestApp({ policy: { allowedIps: [] } });
    expect((await t.request('/health', { peer: '198.51.100.1' })).status).toBe(200);
  });

  it('checks the resolved client, not the proxy nor a spoofed header', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['10.0.0.0/8'], trustedProxies: ['127.0.0.1'] } });
    expect((await t.request('/health', { peer: '127.0.0.1', headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(200);
    await expectErrorBody(
      await t.request('/health', { peer: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.1' } }),
      403,
      'ip_not_allowed',
    );
    // An untrusted peer cannot claim an allowed address.
    await expectErrorBody(
      await t.request('/health', { peer: '127.0.0.5', headers: { 'x-forwarded-for': '10.1.2.3' } }),
      403,
      'ip_not_allowed',
    );
  });

  it('refuses a client whose address is unknown', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['0.0.0.0/0'] } });
    const res = await t.app.request('http://127.0.0.1:8001/api/webui/health', { headers: { host: '127.0.0.1:8001' } }, {});
    await expectErrorBody(res, 403, 'ip_not_allowed');
  });
});
