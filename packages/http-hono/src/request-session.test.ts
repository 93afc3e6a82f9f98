import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from './testing/test-app.js';

describe('guessing through the cookie (DESIGN D4)', () => {
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

  it('counts every distinct wrong value of a request that carries several bot_session cookies', async () => {
    const t = await createTestApp();
    const guesses = ['g1', 'g2', 'g3', 'g4', 'g5'].map((value) => `bot_session=${value}`).join('; ');
    const res = await t.request('/auth/check', { headers: { cookie: guesses } });
    await expectErrorBody(res, 429, 'too_many_attempts');
    expect((await t.verify(t.token)).status).toBe(429);
  });

  it('accepts a request whose valid bot_session comes beside a stale one, without counting the stale one', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const header = `bot_session=stale; other=1; bot_session=${cookie}`;
    for (let i = 0; i < 6; i++) expect(await json(await t.request('/auth/check', { headers: { cookie: header } }))).toMatchObject({ authenticated: true });
    expect((await json(await t.verify('wrong'))).remaining_attempts).toBeUndefined();
  });

  it('reads the cookie among others and with quotes', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    expect(await json(await t.request('/auth/check', { headers: { cookie: `theme=dark; bot_session="${cookie}"; lang=zh` } }))).toMatchObject({
      authenticated: true,
    });
  });
});
