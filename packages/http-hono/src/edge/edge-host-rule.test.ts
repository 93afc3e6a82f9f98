import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody } from '../testing/test-app.js';

describe('Host check against DNS rebinding (docs/decisions/0009-csrf-and-dns-rebinding.md)', () => {
  it('answers 403 host_not_allowed for a foreign Host while bound to loopback only, on every path', async () => {
    const t = await createTestApp({ policy: { loopbackOnly: true } });
    await expectErrorBody(await t.request('/health', { host: 'evil.example' }), 403, 'host_not_allowed');
    await expectErrorBody(await t.request('/health', { host: 'evil.example:8001' }), 403, 'host_not_allowed');
    const verify = await t.verify(t.token, { host: 'evil.example' });
    await expectErrorBody(verify, 403, 'host_not_allowed');
    expect(verify.headers.getSetCookie()).toEqual([]);
    await expectErrorBody(await t.request('//outside', { host: 'evil.example' }), 403, 'host_not_allowed');
  });

  it('accepts loopback names and addresses', async () => {
    const t = await createTestApp({ policy: { loopbackOnly: true } });
    for (const host of [
      '127.0.0.1:8001',
      '127.0.0.1',
      '127.1.2.3:8001',
      'localhost:8001',
      'LOCALHOST',
      'app.localhost:8001',
      '[::1]:8001',
      '[::1]',
      '::1',
    ]) {
      expect((await t.request('/health', { host })).status, host).toBe(200);
    }
    for (const host of ['localhost.evil.example', '128.0.0.1:8001', '[::2]:8001', '10.0.0.1', '']) {
      await expectErrorBody(await t.request('/health', { host }), 403, 'host_not_allowed');
    }
  });

  it('accepts a foreign Host listed in allowed_hosts, by name or name:port', async () => {
    const t = await createTestApp({ policy: { loopbackOnly: true, allowedHosts: ['evil.example', 'proxy.example:8443'] } });
    expect((await t.request('/health', { host: 'evil.example' })).status).toBe(200);
    expect((await t.request('/health', { host: 'EVIL.example:8001' })).status).toBe(200);
    expect((await t.request('/health', { host: 'proxy.example:8443' })).status).toBe(200);
    await expectErrorBody(await t.request('/health', { host: 'other.example' }), 403, 'host_not_allowed');
  });

  it('does not check the Host when not bound to loopback only', async () => {
    const t = await createTestApp({ policy: { loopbackOnly: false } });
    expect((await t.request('/health', { host: 'evil.example' })).status).toBe(200);
    expect((await t.verify(t.token, { host: 'evil.example' })).status).toBe(200);
  });

  it('off loopback, a non-empty allowed_hosts turns the Host check on: listed names and loopback are served, others refused', async () => {
    const t = await createTestApp({ policy: { loopbackOnly: false, allowedHosts: ['bot.example.com'] } });
    expect((await t.request('/health', { host: 'bot.example.com' })).status).toBe(200);
    expect((await t.request('/health', { host: '127.0.0.1:8001' })).status).toBe(200);
    await expectErrorBody(await t.request('/health', { host: 'evil.example' }), 403, 'host_not_allowed');
  });
});
