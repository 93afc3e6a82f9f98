import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json } from '../../testing/test-app.js';

describe('/setup/*', () => {
  it('answers 401 on every setup endpoint without a session, and changes nothing', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/setup/status'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/setup/complete', { method: 'POST' }), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/setup/reset', { method: 'POST' }), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/setup/complete', { method: 'POST', cookie: 'wrong' }), 401, 'invalid_session');
    expect(await t.harness.setup.isFirstSetup()).toBe(true);
  });

  it('GET /setup/status reports the first-setup state and token source with a message', async () => {
    const t = await createTestApp();
    const res = await t.request('/setup/status', { cookie: await t.login() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      is_first_setup: true,
      token_source: 'temporary',
      requires_custom_token: true,
      message: expect.any(String),
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('POST /setup/complete closes first setup for status and later verify answers', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/setup/complete', { method: 'POST', cookie });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: expect.any(String), is_first_setup: false });
    expect(await json(await t.request('/setup/status', { cookie }))).toMatchObject({ is_first_setup: false });
    expect(await json(await t.verify(t.token))).toMatchObject({ valid: true, is_first_setup: false });
    // Completing twice is harmless.
    expect(await json(await t.request('/setup/complete', { method: 'POST', cookie }))).toMatchObject({
      success: true,
      is_first_setup: false,
    });
  });

  it('POST /setup/reset opens first setup again', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await t.request('/setup/complete', { method: 'POST', cookie });
    const res = await t.request('/setup/reset', { method: 'POST', cookie });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: expect.any(String), is_first_setup: true });
    expect(await json(await t.request('/setup/status', { cookie }))).toMatchObject({ is_first_setup: true });
    expect(await json(await t.verify(t.token))).toMatchObject({ is_first_setup: true });
  });

  it('reports a configured token after an update', async () => {
    const t = await createTestApp();
    await t.request('/auth/update', { cookie: await t.login(), json: { new_token: 'Configured!Token1' } });
    const cookie = await t.login('Configured!Token1');
    expect(await json(await t.request('/setup/status', { cookie }))).toMatchObject({
      token_source: 'configured',
      requires_custom_token: false,
    });
  });
});
