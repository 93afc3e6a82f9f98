import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from '../../testing/test-app.js';

const MINUTE = 60_000;

async function failFrom(t: Awaited<ReturnType<typeof createTestApp>>, peer: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await t.verify(`wrong-guess-${i}`, { peer });
}

describe('GET /security/bans', () => {
  it('needs a login', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/security/bans'), 401, 'not_authenticated');
  });

  it('lists a banned address first, then counted failures, with exact times', async () => {
    const t = await createTestApp();
    const start = t.harness.clock.now();
    await failFrom(t, '203.0.113.9', 2);
    t.harness.clock.advance(MINUTE);
    await failFrom(t, '203.0.113.7', 5);
    const cookie = await t.login();
    const res = await t.request('/security/bans', { cookie });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      bans: [
        {
          key: '203.0.113.7',
          failures: 0,
          banned_until: new Date(start + 11 * MINUTE).toISOString(),
          last_attempt: new Date(start + MINUTE).toISOString(),
        },
        { key: '203.0.113.9', failures: 2, banned_until: null, last_attempt: new Date(start).toISOString() },
      ],
    });
  });

  it('lists IPv6 clients per /64', async () => {
    const t = await createTestApp();
    await failFrom(t, '2001:db8:1:2::7', 1);
    await failFrom(t, '2001:db8:1:2:ffff::1', 1);
    const body = await json(await t.request('/security/bans', { cookie: await t.login() }));
    expect(body.bans).toEqual([expect.objectContaining({ key: '2001:db8:1:2::/64', failures: 2 })]);
  });
});

describe('DELETE /security/bans/{key}', () => {
  it('lifts one address: listed as lifted, gone from the list, and the address logs in at once', async () => {
    const t = await createTestApp();
    await failFrom(t, '203.0.113.7', 5);
    await failFrom(t, '203.0.113.9', 2);
    const cookie = await t.login();
    const res = await t.request('/security/bans/203.0.113.7', { method: 'DELETE', cookie });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, lifted: [expect.objectContaining({ key: '203.0.113.7', failures: 0 })] });
    expect((await json(await t.request('/security/bans', { cookie }))).bans).toEqual([expect.objectContaining({ key: '203.0.113.9' })]);
    expect(await json(await t.verify(t.token, { peer: '203.0.113.7' }))).toMatchObject({ valid: true });
    expect(t.logger.at('info').find((call) => call.message === 'bans lifted')?.fields).toMatchObject({
      lifted: ['203.0.113.7'],
      via: 'api',
    });
  });

  it(
    'an API key may not lift or clear its own address (403 own_ban, nothing lifted); the access token session may ' + '(issue 31)',
    async () => {
      const t = await createTestApp();
      const key = await t.createKey('deploy', 'admin');
      const own = await t.login();
      await failFrom(t, '127.0.0.5', 3);
      for (const target of ['127.0.0.5', 'all', '127.0.0.0%2F8'])
        await expectErrorBody(await t.request(`/security/bans/${target}`, { method: 'DELETE', bearer: key }), 403, 'own_ban');
      const refusals = t.logger.at('warn').filter((call) => call.message === 'ban lift refused: an API key may not lift its own ban');
      expect(refusals.map((call) => call.fields)).toEqual(
        ['127.0.0.5', 'all', '127.0.0.0/8'].map((target) => ({ ip: '127.0.0.5', target, via: 'api' })),
      );
      expect((await json(await t.request('/security/bans', { cookie: own }))).bans).toEqual([
        expect.objectContaining({ key: '127.0.0.5', failures: 3 }),
      ]);
      // The token's holder has the token already: its session lifts its own address like any other.
      const res = await t.request('/security/bans/all', { method: 'DELETE', cookie: own });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ success: true, lifted: [expect.objectContaining({ key: '127.0.0.5', failures: 3 })] });
    },
  );

  it('takes a percent-encoded IPv6 /64 key, a CIDR and `all`', async () => {
    const t = await createTestApp();
    await failFrom(t, '2001:db8:1:2::7', 5);
    await failFrom(t, '198.51.100.1', 1);
    await failFrom(t, '198.51.100.2', 1);
    await failFrom(t, '192.0.2.1', 1);
    const cookie = await t.login();
    const ipv6 = await json(await t.request(`/security/bans/${encodeURIComponent('2001:db8:1:2::/64')}`, { method: 'DELETE', cookie }));
    expect(ipv6.lifted).toEqual([expect.objectContaining({ key: '2001:db8:1:2::/64' })]);
    const network = await json(await t.request(`/security/bans/${encodeURIComponent('198.51.100.0/24')}`, { method: 'DELETE', cookie }));
    expect((network.lifted as Array<{ key: string }>).map((entry) => entry.key)).toEqual(['198.51.100.1', '198.51.100.2']);
    const all = await json(await t.request('/security/bans/all', { method: 'DELETE', cookie }));
    expect(all.lifted).toEqual([expect.objectContaining({ key: '192.0.2.1' })]);
    expect((await json(await t.request('/security/bans', { cookie }))).bans).toEqual([]);
  });

  it('answers an empty list when nothing matched, and 400 for a key that is not one', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    expect(await json(await t.request('/security/bans/10.9.9.9', { method: 'DELETE', cookie }))).toEqual({ success: true, lifted: [] });
    await expectErrorBody(await t.request('/security/bans/not%20valid', { method: 'DELETE', cookie }), 400, 'invalid_ban_target');
  });

  it('is a state change: refused without a login and from a foreign Origin, lifting nothing', async () => {
    const t = await createTestApp();
    await failFrom(t, '203.0.113.7', 5);
    const cookie = await t.login();
    await expectErrorBody(await t.request('/security/bans/all', { method: 'DELETE' }), 401, 'not_authenticated');
    await expectErrorBody(
      await t.request('/security/bans/all', { method: 'DELETE', cookie, headers: { origin: 'http://evil.example' } }),
      403,
      'origin_not_allowed',
    );
    await expectErrorBody(
      await t.request('/security/bans/all', { method: 'DELETE', cookie, headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
      'cross_site_request',
    );
    expect((await json(await t.request('/security/bans', { cookie }))).bans).toEqual([expect.objectContaining({ key: '203.0.113.7' })]);
  });

  it('answers a preflight from an allowed origin with DELETE among the methods', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: ['http://localhost:5173'] } });
    const res = await t.request('/security/bans/all', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'DELETE' },
    });
    expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
  });
});
