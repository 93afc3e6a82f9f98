import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody } from '../testing/test-app.js';

describe('two Host headers', () => {
  // A web Headers joins repeated fields with ", " (Bun, Deno; Node's runtime port reads its raw lines the same way).
  it.each([true, false])('are refused 400 duplicate_host on every path, bound to loopback only: %s', async (loopbackOnly) => {
    const t = await createTestApp({ policy: { loopbackOnly } });
    for (const host of ['127.0.0.1:8001, evil.example', '127.0.0.1, 127.0.0.1', 'localhost,localhost']) {
      await expectErrorBody(await t.request('/health', { host }), 400, 'duplicate_host');
      await expectErrorBody(await t.request('//outside', { host }), 400, 'duplicate_host');
      const verify = await t.verify(t.token, { host });
      await expectErrorBody(verify, 400, 'duplicate_host');
      expect(verify.headers.getSetCookie()).toEqual([]);
    }
    expect((await t.request('/health', { host: '127.0.0.1:8001' })).status).toBe(200);
  });

  it('a client outside allowed_ips is still told 403 ip_not_allowed first', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['10.0.0.0/8'] } });
    await expectErrorBody(await t.request('/health', { host: '127.0.0.1, evil.example' }), 403, 'ip_not_allowed');
  });
});
