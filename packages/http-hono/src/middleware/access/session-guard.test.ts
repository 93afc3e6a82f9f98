import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../../app-env.js';
import { RouteGroup } from '../../mount/route-group.js';
import { createTestApp, expectErrorBody, json } from '../../testing/test-app.js';
import { extensionFeature } from '../../feature.js';

function configRoutes() {
  return new Hono<WebuiEnv>().get('/probe', (c) => c.json({ ok: true, session: c.get('sessionToken').length > 0 }));
}

describe('default deny (docs/decisions/0007-default-deny.md)', () => {
  it('answers 401 for unknown paths under the prefix before login, 404 after', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (const path of ['/config/whatever', '/nope', '/person/1', '/health/', '/auth', '']) {
      await expectErrorBody(await t.request(path), 401, 'not_authenticated');
      await expectErrorBody(await t.request(path, { cookie }), 404, 'not_found');
    }
    await expectErrorBody(await t.request('/config/whatever', { method: 'POST', json: {} }), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/whatever', { method: 'POST', json: {}, cookie }), 404, 'not_found');
  });

  it('answers 401 invalid_session for a wrong cookie', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/config/whatever', { cookie: 'wrong' }), 401, 'invalid_session');
  });

  it('answers 404 with an error body (docs/decisions/0001-error-bodies.md) for paths outside the prefix, with or without a session', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    await expectErrorBody(await t.request('//nope'), 404, 'not_found');
    await expectErrorBody(await t.request('//api/other/health'), 404, 'not_found');
    await expectErrorBody(await t.request('//health', { cookie }), 404, 'not_found');
  });

  it('mounts extra route groups behind the guard', async () => {
    const t = await createTestApp({
      features: [extensionFeature('routes', { groups: [new RouteGroup('/api/webui/config', configRoutes())] })],
    });
    await expectErrorBody(await t.request('/config/probe'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/probe', { cookie: 'wrong' }), 401, 'invalid_session');
    const res = await t.request('/config/probe', { cookie: await t.login() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ok: true, session: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves the public endpoints open', async () => {
    const t = await createTestApp();
    expect((await t.request('/health')).status).toBe(200);
    expect((await t.request('/auth/check')).status).toBe(200);
    expect((await t.request('/ws-token')).status).toBe(200);
    expect((await t.request('/auth/logout', { method: 'POST' })).status).toBe(200);
    expect((await t.verify('wrong')).status).toBe(200);
  });

  it('closes every endpoint that requires login', async () => {
    const t = await createTestApp();
    for (const [method, path] of [
      ['POST', '/auth/update'],
      ['POST', '/auth/regenerate'],
      ['GET', '/setup/status'],
      ['POST', '/setup/complete'],
      ['POST', '/setup/reset'],
    ] as const) {
      await expectErrorBody(await t.request(path, { method }), 401, 'not_authenticated');
    }
  });
});
