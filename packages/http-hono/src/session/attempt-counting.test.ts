import { parseCidr } from '@webui/core/net';
import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from '../testing/test-app.js';

const PROXY = '127.0.0.1';
const proxyWarnings = (t: Awaited<ReturnType<typeof createTestApp>>) =>
  t.logger.at('warn').filter((call) => call.message.includes('without a usable X-Forwarded-For'));

describe('a trusted proxy that does not say whose request it forwards (issue 31)', () => {
  it(
    "bad logins through it count against the proxy's own address: the fifth bans it, and a warning names the proxy " + 'once a minute',
    async () => {
      const t = await createTestApp({ policy: { trustedProxies: [PROXY] } });
      for (let i = 0; i < 4; i++) expect((await t.verify(`wrong-${i}`, { peer: PROXY })).status).toBe(200);
      await expectErrorBody(await t.verify('wrong-4', { peer: PROXY }), 429, 'too_many_attempts');
      // Everyone behind it is banned with it, the right token included.
      await expectErrorBody(await t.verify(t.token, { peer: PROXY }), 429, 'too_many_attempts');
      expect(await t.harness.bans.list()).toEqual([expect.objectContaining({ key: PROXY, bannedUntil: expect.any(Number) })]);
      expect(t.audit.named('ban_started')).toEqual([expect.objectContaining({ address: PROXY })]);
      expect(proxyWarnings(t).map((call) => call.fields)).toEqual([{ ip: PROXY }]);
      expect(proxyWarnings(t)[0]?.message).toMatch(/counted against the proxy's own address/);

      t.harness.clock.advance(59_999);
      await t.request('/health', { peer: PROXY });
      expect(proxyWarnings(t)).toHaveLength(1);
      t.harness.clock.advance(1);
      await t.request('/health', { peer: PROXY });
      expect(proxyWarnings(t)).toHaveLength(2);
    },
  );

  it('still counts the client it names in X-Forwarded-For', async () => {
    const t = await createTestApp({ policy: { trustedProxies: [PROXY] } });
    for (let i = 0; i < 4; i++) await t.verify(`wrong-${i}`, { peer: PROXY, headers: { 'x-forwarded-for': '203.0.113.9' } });
    await expectErrorBody(
      await t.verify('wrong-5', { peer: PROXY, headers: { 'x-forwarded-for': '203.0.113.9' } }),
      429,
      'too_many_attempts',
    );
    expect(await json(await t.verify(t.token, { peer: PROXY, headers: { 'x-forwarded-for': '203.0.113.10' } }))).toMatchObject({
      valid: true,
    });
  });
});

describe('stale sessions after a token change', () => {
  it('the old cookie, sent 20 times from open tabs, answers 401 but bans nobody; a never-valid one still counts', async () => {
    const t = await createTestApp();
    const old = await t.login();
    const fresh = await t.login();
    expect((await t.request('/auth/regenerate', { method: 'POST', cookie: fresh })).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      await expectErrorBody(await t.request('/setup/status', { cookie: old }), 401, 'invalid_session');
      expect(await json(await t.request('/auth/check', { cookie: old }))).toEqual({ authenticated: false });
    }
    expect(await t.harness.bans.list()).toEqual([]);
    expect(t.logger.at('info').some((call) => (call.fields as { reason?: string }).reason === 'stale_session')).toBe(true);

    for (let i = 0; i < 4; i++) await t.request('/setup/status', { cookie: `never-valid-${i}` });
    await expectErrorBody(await t.request('/setup/status', { cookie: 'never-valid-5' }), 429, 'too_many_attempts');
  });
});

describe('ban_exempt', () => {
  it('an exempt address is never banned and its failures are still logged', async () => {
    const t = await createTestApp({ banPolicy: { exempt: [parseCidr('127.0.0.0/24')!] } });
    for (let i = 0; i < 20; i++) expect(await json(await t.verify(`wrong-${i}`, { peer: '127.0.0.9' }))).toMatchObject({ valid: false });
    expect(t.logger.at('info').filter((call) => call.message === 'login failed')).toHaveLength(20);
    expect(await json(await t.verify(t.token, { peer: '127.0.0.9' }))).toMatchObject({ valid: true });
    for (let i = 0; i < 4; i++) await t.verify(`wrong-${i}`, { peer: '127.0.1.9' });
    await expectErrorBody(await t.verify('wrong-5', { peer: '127.0.1.9' }), 429, 'too_many_attempts');
  });
});

describe('the global failure budget over HTTP', () => {
  it('past the budget new clients wait, past twice it they get 429 with Retry-After; a client that logged in before passes', async () => {
    const t = await createTestApp({ banPolicy: { globalFailureBudget: 2 } });
    await t.login(t.token, { peer: '198.51.100.99' });
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await t.verify('wrong', { peer: `198.51.100.${i}` }));
    expect(answers.slice(0, 4).map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const refused = await expectErrorBody(answers[4] as Response, 429, 'too_many_attempts');
    expect(refused.detail).toMatch(/server/);
    expect(Number((answers[4] as Response).headers.get('retry-after'))).toBeGreaterThan(0);
    // The right token from a new address is refused too: nothing is compared past the hard cap.
    await expectErrorBody(await t.verify(t.token, { peer: '198.51.100.50' }), 429, 'too_many_attempts');
    expect(await json(await t.verify(t.token, { peer: '198.51.100.99' }))).toMatchObject({ valid: true });
  });
});
