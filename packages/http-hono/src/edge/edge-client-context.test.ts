import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json, type TestApp, type TestRequest } from '../testing/test-app.js';

async function ban(t: TestApp, init: TestRequest): Promise<void> {
  for (let i = 0; i < 5; i++) await t.verify(`wrong-${i}`, init);
  expect((await t.verify(t.token, init)).status).toBe(429);
}

describe('client IP for bans (docs/decisions/0003-client-address.md)', () => {
  it('keeps an untrusted peer banned whatever X-Forwarded-For or X-Real-IP it sends', async () => {
    const t = await createTestApp({ policy: { trustedProxies: ['127.0.0.1'] } });
    await ban(t, { peer: '127.0.0.5' });
    const spoofs: Array<Record<string, string>> = [
      { 'x-forwarded-for': '1.2.3.4' },
      { 'x-real-ip': '1.2.3.4' },
      { 'x-forwarded-for': '1.2.3.4, 127.0.0.1' },
    ];
    for (const headers of spoofs) {
      await expectErrorBody(await t.verify(t.token, { peer: '127.0.0.5', headers }), 429, 'too_many_attempts');
    }
  });

  it('does not let an untrusted peer ban somebody else by naming them', async () => {
    const t = await createTestApp();
    await ban(t, { peer: '127.0.0.5', headers: { 'x-forwarded-for': '127.0.0.6' } });
    expect((await t.verify(t.token, { peer: '127.0.0.6' })).status).toBe(200);
  });

  it('bans the client behind a trusted proxy, not the proxy, and ignores the spoofed left entry', async () => {
    const t = await createTestApp({ policy: { trustedProxies: ['127.0.0.1'] } });
    const viaProxy = (xff: string): TestRequest => ({ peer: '127.0.0.1', headers: { 'x-forwarded-for': xff } });
    await ban(t, viaProxy('spoofed, 203.0.113.9'));
    // Another client through the same proxy is fine, and so is the proxy's own address.
    const other = await t.verify(t.token, viaProxy('203.0.113.10'));
    expect(other.status).toBe(200);
    expect((await json(other)).valid).toBe(true);
    expect((await t.verify(t.token, { peer: '127.0.0.1' })).status).toBe(200);
    // Changing the client-written left part does not escape the ban.
    for (const xff of ['198.51.100.1, 203.0.113.9', '203.0.113.9', '10.0.0.1, 127.0.0.1, 203.0.113.9']) {
      await expectErrorBody(await t.verify(t.token, viaProxy(xff)), 429, 'too_many_attempts');
    }
  });

  it('counts IPv6 clients per /64', async () => {
    const t = await createTestApp();
    await ban(t, { peer: '2001:db8:1:2::1' });
    await expectErrorBody(await t.verify(t.token, { peer: '2001:db8:1:2:ffff::9' }), 429, 'too_many_attempts');
    expect((await t.verify(t.token, { peer: '2001:db8:1:3::1' })).status).toBe(200);
  });

  it('treats an IPv4-mapped IPv6 peer as its IPv4 address', async () => {
    const t = await createTestApp();
    await ban(t, { peer: '::ffff:127.0.0.5' });
    await expectErrorBody(await t.verify(t.token, { peer: '127.0.0.5' }), 429, 'too_many_attempts');
  });

  it('logs the resolved client address', async () => {
    const t = await createTestApp({ policy: { trustedProxies: ['127.0.0.1'] } });
    await t.request('/health', { peer: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } });
    const line = t.logger.calls.find((call) => call.message === 'request');
    expect(line?.fields).toMatchObject({ ip: '203.0.113.9', path: '/api/webui/health', status: 200 });
  });
});
