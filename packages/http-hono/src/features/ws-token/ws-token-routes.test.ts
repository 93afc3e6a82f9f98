import { describe, expect, it } from 'vitest';
import { createTestApp, json } from '../../testing/test-app.js';

describe('GET /ws-token', () => {
  it('answers 200 {success:false, message} without a cookie, not 401', async () => {
    const t = await createTestApp();
    const res = await t.request('/ws-token');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: false, message: expect.any(String) });
  });

  it('answers 200 success:false for a wrong cookie', async () => {
    const t = await createTestApp();
    const res = await t.request('/ws-token', { cookie: 'wrong' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: false, message: expect.any(String) });
  });

  it('issues a 43-character URL-safe one-time ticket valid 60 s, bound to the session', async () => {
    const t = await createTestApp();
    const res = await t.request('/ws-token', { cookie: await t.login() });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await json(res);
    expect(body).toEqual({ success: true, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: 60 });
    const ticket = body.token as string;
    expect(await t.harness.tickets.redeem(ticket)).toMatchObject({ ok: true, value: { sessionToken: t.token } });
    expect((await t.harness.tickets.redeem(ticket)).ok).toBe(false);
  });

  it('issues a different ticket each time', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const first = (await json(await t.request('/ws-token', { cookie }))).token;
    const second = (await json(await t.request('/ws-token', { cookie }))).token;
    expect(first).not.toBe(second);
  });

  it('stops issuing once the session token was rotated', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await t.request('/auth/regenerate', { method: 'POST', cookie });
    expect(await json(await t.request('/ws-token', { cookie }))).toEqual({ success: false, message: expect.any(String) });
  });
});
