import { describe, expect, it } from 'vitest';
import { createTestApp, sessionSetCookies, type TestRequest } from '../../testing/test-app.js';

const PLAIN = (value: string, maxAge: number) => `bot_session=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax`;
const SECURE = (value: string, maxAge: number) => `bot_session=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; Secure; SameSite=Lax`;

describe('bot_session cookie attributes (docs/decisions/0006-session-cookie.md)', () => {
  async function issuedAndCleared(policy: Parameters<typeof createTestApp>[0], init: TestRequest = {}) {
    const t = await createTestApp(policy);
    const login = await t.verify(t.token, init);
    const logout = await t.request('/auth/logout', { method: 'POST', ...init });
    return { t, issued: sessionSetCookies(login), cleared: sessionSetCookies(logout) };
  }

  it('is HttpOnly, SameSite=Lax, Path=/, Max-Age of 7 days and not Secure over plain HTTP', async () => {
    const { t, issued, cleared } = await issuedAndCleared({});
    expect(issued).toEqual([PLAIN(encodeURIComponent(t.token), 604800)]);
    expect(cleared).toEqual([PLAIN('', 0)]);
  });

  it('takes Max-Age from sessionExpireDays', async () => {
    const { t, issued } = await issuedAndCleared({ policy: { sessionExpireDays: 1 } });
    expect(issued).toEqual([PLAIN(encodeURIComponent(t.token), 86400)]);
  });

  it('is Secure whenever secureCookie is set, even in development over plain HTTP', async () => {
    const { t, issued, cleared } = await issuedAndCleared({ policy: { secureCookie: true, mode: 'development' } });
    expect(issued).toEqual([SECURE(encodeURIComponent(t.token), 604800)]);
    expect(cleared).toEqual([SECURE('', 0)]);
  });

  it('is Secure in production behind a trusted proxy that forwards https', async () => {
    const { t, issued, cleared } = await issuedAndCleared(
      { policy: { mode: 'production', trustedProxies: ['127.0.0.1'] } },
      { peer: '127.0.0.1', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' } },
    );
    expect(issued).toEqual([SECURE(encodeURIComponent(t.token), 604800)]);
    expect(cleared).toEqual([SECURE('', 0)]);
  });

  it('is Secure in production over TLS', async () => {
    const { t, issued } = await issuedAndCleared({ policy: { mode: 'production' } }, { tls: true });
    expect(issued).toEqual([SECURE(encodeURIComponent(t.token), 604800)]);
  });

  it('is not Secure in production when an untrusted peer claims X-Forwarded-Proto: https', async () => {
    const { t, issued } = await issuedAndCleared(
      { policy: { mode: 'production', trustedProxies: ['127.0.0.1'] } },
      { peer: '127.0.0.5', headers: { 'x-forwarded-proto': 'https' } },
    );
    expect(issued).toEqual([PLAIN(encodeURIComponent(t.token), 604800)]);
  });

  it('is not Secure in development over forwarded https unless secureCookie', async () => {
    const { t, issued } = await issuedAndCleared(
      { policy: { mode: 'development', trustedProxies: ['127.0.0.1'] } },
      { peer: '127.0.0.1', headers: { 'x-forwarded-proto': 'https' } },
    );
    expect(issued).toEqual([PLAIN(encodeURIComponent(t.token), 604800)]);
  });

  it('warns once in production when the cookie goes out without Secure', async () => {
    const t = await createTestApp({ policy: { mode: 'production' } });
    await t.verify(t.token);
    await t.verify(t.token);
    await t.request('/auth/logout', { method: 'POST' });
    const warnings = t.logger.at('warn').filter((call) => /Secure/.test(call.message));
    expect(warnings).toHaveLength(1);
  });

  it('does not warn in development', async () => {
    const t = await createTestApp({ policy: { mode: 'development' } });
    await t.verify(t.token);
    expect(t.logger.at('warn')).toEqual([]);
  });

  it('percent-encodes a token with ; and , so the cookie stays one value', async () => {
    const t = await createTestApp();
    await t.request('/auth/update', { cookie: await t.login(), json: { new_token: 'Abc;def,ghi!9' } });
    const res = await t.verify('Abc;def,ghi!9');
    expect(sessionSetCookies(res)).toEqual([PLAIN('Abc%3Bdef%2Cghi!9', 604800)]);
  });
});
