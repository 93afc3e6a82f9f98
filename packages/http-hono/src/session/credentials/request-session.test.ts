import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from '../../testing/test-app.js';

describe('guessing through the cookie (docs/decisions/0004-guessing-through-the-cookie.md)', () => {
  it('bans after 5 distinct wrong cookie values from one IP', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 4; i++) {
      const res = await t.request('/auth/check', { cookie: `guess-${i}` });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ authenticated: false });
    }
    const fifth = await t.request('/auth/check', { cookie: 'guess-4' });
    const body = await expectErrorBody(fifth, 429, 'too_many_attempts');
    expect(body).toMatchObject({ authenticated: false, retry_after: 600 });
    expect(fifth.headers.get('retry-after')).toBe('600');
    expect((await t.verify(t.token)).status).toBe(429);
    expect((await t.verify(t.token, { peer: '127.0.0.6' })).status).toBe(200);
  });

  it('does not ban the owner of a stale cookie polling with the same value', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 20; i++) {
      const res = await t.request('/auth/check', { cookie: 'stale-value' });
      expect(res.status).toBe(200);
    }
    expect((await t.verify(t.token)).status).toBe(200);
  });

  it('counts the stale value once: four more distinct guesses then ban', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 10; i++) await t.request('/auth/check', { cookie: 'stale-value' });
    for (let i = 0; i < 3; i++) expect((await t.request('/auth/check', { cookie: `guess-${i}` })).status).toBe(200);
    expect((await t.request('/auth/check', { cookie: 'guess-3' })).status).toBe(429);
  });

  it('shares the count with /auth/verify', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 4; i++) await t.request('/auth/check', { cookie: `guess-${i}` });
    const res = await t.verify('wrong');
    await expectErrorBody(res, 429, 'too_many_attempts');
  });

  it('counts wrong cookies on protected endpoints and /ws-token too', async () => {
    const t = await createTestApp();
    await t.request('/setup/status', { cookie: 'g1' });
    await t.request('/ws-token', { cookie: 'g2' });
    await t.request('/auth/update', { cookie: 'g3', json: { new_token: 'Abcdefghi!' } });
    await t.request('/config/anything', { cookie: 'g4' });
    await expectErrorBody(await t.request('/setup/complete', { method: 'POST', cookie: 'g5' }), 429, 'too_many_attempts');
    await expectErrorBody(await t.request('/ws-token', { cookie: 'g6' }), 429, 'too_many_attempts');
  });

  it('refuses a banned client even with a valid cookie, everywhere the cookie is read', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (let i = 0; i < 5; i++) await t.verify(`wrong-${i}`);
    await expectErrorBody(await t.request('/auth/check', { cookie }), 429, 'too_many_attempts');
    await expectErrorBody(await t.request('/setup/status', { cookie }), 429, 'too_many_attempts');
    await expectErrorBody(await t.request('/ws-token', { cookie }), 429, 'too_many_attempts');
    // Public endpoints that ignore the cookie keep answering.
    expect((await t.request('/health', { cookie })).status).toBe(200);
    expect((await t.request('/auth/logout', { method: 'POST', cookie })).status).toBe(200);
    t.harness.clock.advanceMinutes(10);
    expect(await json(await t.request('/auth/check', { cookie }))).toMatchObject({ authenticated: true });
  });

  it('does not count a valid cookie', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (let i = 0; i < 10; i++) expect(await json(await t.request('/auth/check', { cookie }))).toMatchObject({ authenticated: true });
    const [first] = [await json(await t.verify('wrong'))];
    expect(first?.remaining_attempts).toBeUndefined();
  });

  it('refuses a request with several bot_session cookies unread, as one guess: the right one beside them does not help', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const guesses = Array.from({ length: 300 }, (_, n) => `bot_session=g${n}`).join('; ');
    for (const path of ['/auth/check', '/setup/status', '/ws-token']) {
      const body = await expectErrorBody(
        await t.request(path, { headers: { cookie: `${guesses}; bot_session=${cookie}` } }),
        400,
        'duplicate_credentials',
      );
      expect(body.authenticated).not.toBe(true);
    }
    expect(await t.harness.bans.list()).toMatchObject([{ key: '127.0.0.5', failures: 3 }]);
    expect(t.audit.named('login_failed')).toEqual(
      Array.from({ length: 3 }, (_, n) => ({
        event: 'login_failed',
        address: '127.0.0.5',
        via: 'api',
        how: 'cookie',
        counted: true,
        remaining: 4 - n,
      })),
    );
  });

  it('refuses two bot_session cookies even when both are the valid one, and a stale one beside a valid one', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await expectErrorBody(
      await t.request('/auth/check', { headers: { cookie: `bot_session=${cookie}; bot_session=${cookie}` } }),
      400,
      'duplicate_credentials',
    );
    await expectErrorBody(
      await t.request('/auth/check', { headers: { cookie: `bot_session=stale; other=1; bot_session=${cookie}` } }),
      400,
      'duplicate_credentials',
    );
    expect((await json(await t.verify('wrong'))).remaining_attempts).toBe(2);
  });

  it('five requests of many wrong cookies ban the address; a banned client is refused 429 before the rule is applied', async () => {
    const t = await createTestApp();
    const guesses = (round: number) => Array.from({ length: 50 }, (_, n) => `bot_session=r${round}-${n}`).join('; ');
    for (let round = 0; round < 4; round++)
      await expectErrorBody(await t.request('/auth/check', { headers: { cookie: guesses(round) } }), 400, 'duplicate_credentials');
    const fifth = await expectErrorBody(await t.request('/auth/check', { headers: { cookie: guesses(4) } }), 429, 'too_many_attempts');
    expect(fifth).toMatchObject({ authenticated: false, retry_after: 600 });
    await expectErrorBody(await t.request('/setup/status', { headers: { cookie: guesses(5) } }), 429, 'too_many_attempts');
    expect((await t.verify(t.token)).status).toBe(429);
    expect(t.audit.named('ban_started')).toEqual([
      { event: 'ban_started', address: '127.0.0.5', via: 'api', how: 'cookie', retry_after: 600 },
    ]);
  });

  it('refuses two Authorization fields (joined with ", " as a web Headers joins them) as one guess, whatever they hold', async () => {
    const t = await createTestApp();
    const key = await t.createKey('ci', 'read');
    for (const authorization of [
      `Bearer wrong, Bearer ${t.token}`,
      `Bearer ${key}, Bearer ${key}`,
      `Basic dXNlcjpwYXNz, Bearer ${key}`,
      `Bearer ${key}, Basic dXNlcjpwYXNz`,
    ]) {
      await expectErrorBody(await t.request('/setup/status', { headers: { authorization } }), 400, 'duplicate_credentials');
    }
    expect(t.audit.named('login_failed').map((event) => event.how)).toEqual(['bearer', 'bearer', 'bearer', 'bearer']);
    // One field is one credential: a token may hold a comma, and another scheme alone is no bearer.
    expect((await t.request('/setup/status', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await expectErrorBody(
      await t.request('/setup/status', { headers: { authorization: 'Digest username="a", realm="b"' } }),
      401,
      'not_authenticated',
    );
  });

  it('reads the cookie among others and with quotes', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    expect(
      await json(await t.request('/auth/check', { headers: { cookie: `theme=dark; bot_session="${cookie}"; lang=zh` } })),
    ).toMatchObject({
      authenticated: true,
    });
  });
});
