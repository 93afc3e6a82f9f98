import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json, sessionCookieValue, sessionSetCookies, type TestApp } from '../../testing/test-app.js';

const CLEARED = 'bot_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax';
const STRONG = 'Abc;def,ghi!9';

async function failVerify(
  t: TestApp,
  times: number,
  peer?: string,
): Promise<Array<{ status: number; body: Record<string, unknown>; retryAfter: string | null }>> {
  const results = [];
  for (let i = 0; i < times; i++) {
    const res = await t.verify(`wrong-token-${i}`, peer ? { peer } : {});
    results.push({ status: res.status, body: await json(res), retryAfter: res.headers.get('retry-after') });
  }
  return results;
}

describe('POST /auth/verify', () => {
  it('logs in with the temporary token: 200, first-setup fields, and the session cookie', async () => {
    const t = await createTestApp();
    const res = await t.verify(t.token);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      valid: true,
      message: expect.any(String),
      is_first_setup: true,
      token_source: 'temporary',
      requires_custom_token: true,
    });
    expect(sessionSetCookies(res)).toEqual([`bot_session=${encodeURIComponent(t.token)}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax`]);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a wrong token 200 {valid:false, message} without a reminder for failures 1 and 2', async () => {
    const t = await createTestApp();
    const [first, second] = await failVerify(t, 2);
    for (const result of [first, second]) {
      expect(result?.status).toBe(200);
      expect(result?.body).toEqual({ valid: false, message: expect.any(String) });
    }
  });

  it('sets no cookie on a failed verification', async () => {
    const t = await createTestApp();
    const res = await t.verify('wrong');
    expect(sessionSetCookies(res)).toEqual([]);
  });

  it('reminds with remaining_attempts 2 then 1 on failures 3 and 4, then bans with 429 on the 5th', async () => {
    const t = await createTestApp();
    const results = await failVerify(t, 5);
    expect(results.slice(0, 4).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results[2]?.body).toEqual({ valid: false, message: expect.stringContaining('2'), remaining_attempts: 2 });
    expect(results[2]?.body.message).toMatch(/2 attempts/);
    expect(results[3]?.body).toEqual({ valid: false, message: expect.stringContaining('1'), remaining_attempts: 1 });
    expect(results[3]?.body.message).toMatch(/1 attempt\b/);
    const banned = results[4];
    expect(banned?.status).toBe(429);
    expect(banned?.retryAfter).toBe('600');
    expect(banned?.body).toMatchObject({ detail: expect.any(String), code: 'too_many_attempts', retry_after: 600, valid: false });
  });

  it('answers 429 during the ban even for the right token, with an error body (docs/decisions/0001-error-bodies.md) and no cookie', async () => {
    const t = await createTestApp();
    await failVerify(t, 5);
    const res = await t.verify(t.token);
    const body = await expectErrorBody(res, 429, 'too_many_attempts');
    expect(body.retry_after).toBe(600);
    expect(res.headers.get('retry-after')).toBe('600');
    expect(sessionSetCookies(res)).toEqual([]);
  });

  it('bans only the failing IP', async () => {
    const t = await createTestApp();
    await failVerify(t, 5, '127.0.0.5');
    expect((await t.verify(t.token, { peer: '127.0.0.5' })).status).toBe(429);
    const other = await t.verify(t.token, { peer: '127.0.0.6' });
    expect(other.status).toBe(200);
    expect((await json(other)).valid).toBe(true);
    // Another IP's failures start from zero: no reminder on its first failure.
    expect((await failVerify(t, 1, '127.0.0.7'))[0]?.body).toEqual({ valid: false, message: expect.any(String) });
  });

  it('lifts the ban after 10 minutes, counting Retry-After down on the way', async () => {
    const t = await createTestApp();
    await failVerify(t, 5);
    t.harness.clock.advanceMinutes(4);
    const during = await t.verify(t.token);
    expect(during.status).toBe(429);
    expect(during.headers.get('retry-after')).toBe('360');
    expect((await json(during)).retry_after).toBe(360);
    t.harness.clock.advanceSeconds(5 * 60 + 59);
    const lastSecond = await t.verify(t.token);
    expect(lastSecond.status).toBe(429);
    expect(lastSecond.headers.get('retry-after')).toBe('1');
    t.harness.clock.advanceSeconds(1);
    const after = await t.verify(t.token);
    expect(after.status).toBe(200);
    expect((await json(after)).valid).toBe(true);
  });

  it('starts counting from zero once a ban has run out', async () => {
    const t = await createTestApp();
    await failVerify(t, 5);
    t.harness.clock.advanceMinutes(10);
    const [first] = await failVerify(t, 1);
    expect(first?.status).toBe(200);
    expect(first?.body).toEqual({ valid: false, message: expect.any(String) });
  });

  it('clears the failure count on success: 4 failures, success, 4 failures is not a ban', async () => {
    const t = await createTestApp();
    await failVerify(t, 4);
    expect((await t.verify(t.token)).status).toBe(200);
    const again = await failVerify(t, 4);
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(again[0]?.body.remaining_attempts).toBeUndefined();
    expect(again[3]?.body.remaining_attempts).toBe(1);
    expect((await t.verify(t.token)).status).toBe(200);
  });

  it('counts failures in a 5-minute window: old failures stop counting', async () => {
    const t = await createTestApp();
    await failVerify(t, 4);
    t.harness.clock.advanceSeconds(5 * 60 + 1);
    const [next] = await failVerify(t, 1);
    expect(next?.status).toBe(200);
    expect(next?.body.remaining_attempts).toBeUndefined();
  });

  it('reports is_first_setup false once setup is completed', async () => {
    const t = await createTestApp();
    await t.harness.setup.complete();
    expect(await json(await t.verify(t.token))).toMatchObject({ valid: true, is_first_setup: false });
  });
});

describe('GET /auth/check', () => {
  it('answers 200 {authenticated:false} without a cookie, never 401', async () => {
    const t = await createTestApp();
    const res = await t.request('/auth/check');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ authenticated: false });
  });

  it('answers 200 {authenticated:false} for a wrong cookie', async () => {
    const t = await createTestApp();
    const res = await t.request('/auth/check', { cookie: 'wrong' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ authenticated: false });
  });

  it('reports the token source for a valid session cookie', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/auth/check', { cookie });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ authenticated: true, token_source: 'temporary', requires_custom_token: true });
  });

  it('accepts the raw token pasted into the cookie', async () => {
    const t = await createTestApp();
    await t.request('/auth/update', { cookie: await t.login(), json: { new_token: 'Raw%41Token!x' } });
    expect(await json(await t.request('/auth/check', { cookie: 'Raw%41Token!x' }))).toMatchObject({ authenticated: true });
  });

  it('accepts a percent-encoded token containing ; and , as the server set it', async () => {
    const t = await createTestApp();
    const update = await t.request('/auth/update', { cookie: await t.login(), json: { new_token: STRONG } });
    expect(update.status).toBe(200);
    const cookie = await t.login(STRONG);
    expect(cookie).toBe('Abc%3Bdef%2Cghi!9');
    const res = await t.request('/auth/check', { cookie });
    expect(await json(res)).toEqual({ authenticated: true, token_source: 'configured', requires_custom_token: false });
  });
});

describe('POST /auth/update', () => {
  it('answers 401 not_authenticated without a cookie and changes nothing', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/auth/update', { json: { new_token: STRONG } }), 401, 'not_authenticated');
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });

  it('answers 401 invalid_session for a wrong cookie', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/auth/update', { cookie: 'wrong', json: { new_token: STRONG } }), 401, 'invalid_session');
  });

  it('refuses a weak token with 400 weak_token naming every broken rule, and keeps the old token', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/auth/update', { cookie, json: { new_token: 'abc def' } });
    const body = await expectErrorBody(res, 400, 'weak_token');
    expect(body).toEqual({
      success: false,
      message: expect.any(String),
      code: 'weak_token',
      violations: ['too_short', 'missing_uppercase', 'missing_special', 'invalid_characters'],
      detail: expect.any(String),
    });
    expect(sessionSetCookies(res)).toEqual([]);
    expect((await json(await t.verify(t.token))).valid).toBe(true);
    expect(await json(await t.request('/setup/status', { cookie }))).toMatchObject({ token_source: 'temporary' });
  });

  it('names each rule on its own, and the current token too', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const rules = async (newToken: string) =>
      (await json(await t.request('/auth/update', { cookie, json: { new_token: newToken } }))).violations;
    expect(await rules('Abcdefgh!')).toEqual(['too_short']);
    expect(await rules('abcdefghi!')).toEqual(['missing_uppercase']);
    expect(await rules('ABCDEFGHI!')).toEqual(['missing_lowercase']);
    expect(await rules('Abcdefghij')).toEqual(['missing_special']);
    expect(await rules('Abcdéfghi!')).toEqual(['invalid_characters']);
    expect(await rules(`Ab!${'x'.repeat(510)}`)).toEqual(['too_long']);
    expect(await rules(t.token)).toEqual(['missing_uppercase', 'missing_special', 'same_as_current']);
  });

  it('replaces the token: 200, cookie cleared, old token and cookie dead, new token configured', async () => {
    const t = await createTestApp();
    const oldCookie = await t.login();
    const res = await t.request('/auth/update', { cookie: oldCookie, json: { new_token: STRONG } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: expect.any(String) });
    expect(sessionSetCookies(res)).toEqual([CLEARED]);

    expect(await json(await t.verify(t.token))).toEqual({ valid: false, message: expect.any(String) });
    await expectErrorBody(await t.request('/setup/status', { cookie: oldCookie }), 401, 'invalid_session');
    const fresh = await t.verify(STRONG);
    expect(await json(fresh)).toMatchObject({ valid: true, token_source: 'configured', requires_custom_token: false });
  });

  it('refuses bodies that are not {new_token: string}', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await expectErrorBody(await t.request('/auth/update', { cookie, json: {} }), 422, 'invalid_body');
    await expectErrorBody(await t.request('/auth/update', { cookie, json: { new_token: 12345678901 } }), 422, 'invalid_body');
    await expectErrorBody(
      await t.request('/auth/update', { cookie, body: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
    await expectErrorBody(await t.request('/auth/update', { cookie, body: STRONG }), 415, 'unsupported_media_type');
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });
});

describe('POST /auth/regenerate', () => {
  it('answers 401 without a session and keeps the token', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/auth/regenerate', { method: 'POST' }), 401, 'not_authenticated');
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });

  it('returns a new 64-hex token once, clears the cookie, and switches tokens at once', async () => {
    const t = await createTestApp();
    const oldCookie = await t.login();
    const res = await t.request('/auth/regenerate', { method: 'POST', cookie: oldCookie });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ success: true, token: expect.stringMatching(/^[0-9a-f]{64}$/), message: expect.any(String) });
    expect(body.token).not.toBe(t.token);
    expect(sessionSetCookies(res)).toEqual([CLEARED]);

    expect((await json(await t.verify(t.token))).valid).toBe(false);
    await expectErrorBody(await t.request('/setup/status', { cookie: oldCookie }), 401, 'invalid_session');
    const fresh = await t.verify(body.token as string);
    expect(await json(fresh)).toMatchObject({ valid: true, token_source: 'configured', requires_custom_token: false });
    const newCookie = sessionCookieValue(fresh) as string;
    expect((await t.request('/setup/status', { cookie: newCookie })).status).toBe(200);
  });
});

describe('POST /auth/logout', () => {
  it('answers 200 with the fixed message and clears the cookie, logged in or not', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (const init of [{ cookie }, {}, { cookie: 'wrong' }]) {
      const res = await t.request('/auth/logout', { method: 'POST', ...init });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ success: true, message: '已成功登出' });
      expect(sessionSetCookies(res)).toEqual([CLEARED]);
    }
  });

  it('does not count a wrong cookie as a guess', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 6; i++) await t.request('/auth/logout', { method: 'POST', cookie: `guess-${i}` });
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });
});
