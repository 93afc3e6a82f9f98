import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { createTestApp, expectErrorBody, json, type TestApp } from '../testing/test-app.js';
import { RouteGroup, type RouteRequest } from './route-group.js';
import { extensionFeature } from '../feature.js';

/** A bot's config group whose handlers record every call, so a test can prove a refused caller never reached one. */
function configGroup() {
  const calls: Array<{ route: string; request: RouteRequest<unknown> }> = [];
  const record = (route: string) => (c: { json(body: unknown): Response }, request: RouteRequest<unknown>) => {
    calls.push({ route, request });
    return c.json({ route, body: request.body ?? null });
  };
  const group = new RouteGroup('/api/webui/config')
    .get('/', record('read config'))
    .put('/', { body: v.object({ name: v.string(), level: v.picklist(['info', 'debug']) }) }, record('write config'))
    .get('/secrets', { scope: 'admin' }, record('read secrets'))
    .get('/version', { public: true }, record('version'))
    .post('/ping', { public: true }, record('public ping'))
    .get('/sections/:name', record('read section'));
  return { group, calls, routes: () => calls.map((call) => call.route) };
}

async function appWith(group: RouteGroup, options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp({ ...options, features: [extensionFeature('routes', { groups: [group] }), ...(options.features ?? [])] });
  return { t, cookie: await t.login() };
}

const CONFIG = { name: 'bot', level: 'info' };

describe('a mounted route is behind the whole pipeline', () => {
  it('a caller without a credential, with a wrong one, or banned never reaches a handler', async () => {
    const { group, routes } = configGroup();
    const { t, cookie } = await appWith(group);
    await expectErrorBody(await t.request('/config'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config', { method: 'PUT', json: CONFIG }), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/sections/a', { cookie: 'wrong' }), 401, 'invalid_session');
    await expectErrorBody(await t.request('/config', { bearer: 'wk_wrong' }), 401, 'invalid_credentials');
    const peer = '127.0.0.77';
    for (let i = 0; i < 5; i++) await t.verify('wrong', { peer });
    // Banned: even the right cookie from that address is refused before any handler.
    await expectErrorBody(await t.request('/config', { cookie, peer }), 429, 'too_many_attempts');
    await expectErrorBody(await t.request('/config', { method: 'PUT', json: CONFIG, cookie, peer }), 429, 'too_many_attempts');
    expect(routes()).toEqual([]);
    expect((await t.request('/config', { cookie })).status).toBe(200);
    expect(routes()).toEqual(['read config']);
  });

  it('a cross-site state change never reaches a handler, a public one included', async () => {
    const { group, routes } = configGroup();
    const { t, cookie } = await appWith(group);
    const foreign = { origin: 'http://evil.example' };
    await expectErrorBody(await t.request('/config', { method: 'PUT', json: CONFIG, cookie, headers: foreign }), 403, 'origin_not_allowed');
    await expectErrorBody(await t.request('/config/ping', { method: 'POST', json: {}, headers: foreign }), 403, 'origin_not_allowed');
    expect(routes()).toEqual([]);
  });

  it('a read key reads, but neither changes state nor reads an admin GET; an admin key and the token do both', async () => {
    const { group, routes } = configGroup();
    const { t, cookie } = await appWith(group);
    const reader = await t.createKey('reader', 'read');
    const admin = await t.createKey('deployer', 'admin');
    const put = await expectErrorBody(
      await t.request('/config', { method: 'PUT', json: CONFIG, bearer: reader }),
      403,
      'insufficient_scope',
    );
    expect(put.required).toBe('admin');
    const secrets = await expectErrorBody(await t.request('/config/secrets', { bearer: reader }), 403, 'insufficient_scope');
    expect(secrets.required).toBe('admin');
    expect(routes()).toEqual([]);

    expect((await t.request('/config', { bearer: reader })).status).toBe(200);
    expect((await t.request('/config/secrets', { bearer: admin })).status).toBe(200);
    expect((await t.request('/config/secrets', { cookie })).status).toBe(200);
    expect((await t.request('/config', { method: 'PUT', json: CONFIG, bearer: admin })).status).toBe(200);
    expect(routes()).toEqual(['read config', 'read secrets', 'read secrets', 'write config']);
  });

  it('hands the handler its principal: the session, or the key with its name and scope', async () => {
    const { group, calls } = configGroup();
    const { t, cookie } = await appWith(group);
    await t.request('/config/sections/main', { cookie });
    await t.request('/config/sections/main', { bearer: await t.createKey('reader', 'read') });
    expect(calls.map((call) => call.request.principal)).toEqual([
      expect.objectContaining({ kind: 'token' }),
      expect.objectContaining({ kind: 'key', name: 'reader', scope: 'read' }),
    ]);
  });

  it('a route without a declaration needs a login; an unknown path under the group answers 401 before 404', async () => {
    const { group, routes } = configGroup();
    const { t, cookie } = await appWith(group);
    await expectErrorBody(await t.request('/config/sections/x'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/nothing'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/version/'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/config/nothing', { cookie }), 404, 'not_found');
    expect(routes()).toEqual([]);
  });
});

describe('a public route', () => {
  it('answers without a credential, for GET and HEAD, and only for the method it declares', async () => {
    const { group, calls } = configGroup();
    const { t } = await appWith(group);
    const res = await t.request('/config/version');
    expect(res.status).toBe(200);
    expect(calls[0]?.request.principal).toBeNull();
    expect((await t.request('/config/version', { method: 'HEAD' })).status).toBe(200);
    expect((await t.request('/config/ping', { method: 'POST', json: {} })).status).toBe(200);
    // The same path with another method is not public.
    await expectErrorBody(await t.request('/config/version', { method: 'POST', json: {} }), 401, 'not_authenticated');
    // A credential on a public route is neither checked nor counted.
    expect((await t.request('/config/version', { cookie: 'wrong' })).status).toBe(200);
    expect(t.audit.named('login_failed')).toEqual([]);
  });

  it('is still behind the allowed addresses and the Host rule', async () => {
    const { group, routes } = configGroup();
    const { t } = await appWith(group, { policy: { allowedIps: ['127.0.0.0/8'] } });
    await expectErrorBody(await t.request('/config/version', { peer: '198.51.100.1' }), 403, 'ip_not_allowed');
    await expectErrorBody(await t.request('/config/version', { host: 'evil.example' }), 403, 'host_not_allowed');
    expect(routes()).toEqual([]);
  });
});

describe('a declared body', () => {
  const send = (t: TestApp, cookie: string, body: string, contentType: string) =>
    t.request('/config', { method: 'PUT', cookie, body, headers: { 'content-type': contentType } });

  it('is validated before the handler: 415, 400 and 422 with the error body (docs/decisions/0001-error-bodies.md), and the handler is not called', async () => {
    const { group, routes } = configGroup();
    const { t, cookie } = await appWith(group);
    await expectErrorBody(await send(t, cookie, JSON.stringify(CONFIG), 'text/plain'), 415, 'unsupported_media_type');
    await expectErrorBody(await send(t, cookie, JSON.stringify(CONFIG), 'application/json; charset=latin1'), 415, 'unsupported_charset');
    await expectErrorBody(await send(t, cookie, '{"name":', 'application/json'), 400, 'invalid_json');
    const wrong = await expectErrorBody(await send(t, cookie, '{"name":"bot","level":"loud"}', 'application/json'), 422, 'invalid_body');
    expect(wrong.detail).toContain('level');
    expect(routes()).toEqual([]);
  });

  it('reaches the handler parsed', async () => {
    const { group } = configGroup();
    const { t, cookie } = await appWith(group);
    const res = await t.request('/config', { method: 'PUT', json: { ...CONFIG, extra: 1 }, cookie });
    expect(await json(res)).toEqual({ route: 'write config', body: CONFIG });
  });
});

describe('audit()', () => {
  it('writes a bot_action event naming the caller, method, path, action and details', async () => {
    const group = new RouteGroup('/api/webui/config')
      .put('/', (c, request) => {
        request.audit('config_saved', { section: 'chat', changed: 2, dry_run: false });
        return c.json({ ok: true });
      })
      .post('/hook', { public: true }, (c, request) => {
        request.audit(`hook_received ${'x'.repeat(200)}`);
        return c.json({ ok: true });
      });
    const { t, cookie } = await appWith(group);
    await t.request('/config', { method: 'PUT', json: {}, cookie });
    await t.request('/config', { method: 'PUT', json: {}, bearer: await t.createKey('deployer', 'admin'), peer: '127.0.0.9' });
    await t.request('/config/hook', { method: 'POST', json: {} });
    expect(t.audit.named('bot_action')).toEqual([
      {
        event: 'bot_action',
        address: '127.0.0.5',
        via: 'api',
        principal: 'session',
        method: 'PUT',
        path: '/api/webui/config',
        action: 'config_saved',
        details: { section: 'chat', changed: 2, dry_run: false },
      },
      expect.objectContaining({ address: '127.0.0.9', principal: 'key:deployer', action: 'config_saved' }),
      {
        event: 'bot_action',
        address: '127.0.0.5',
        via: 'api',
        principal: 'anonymous',
        method: 'POST',
        path: '/api/webui/config/hook',
        // Cut at 128 characters: the line stays small whatever a bot passes.
        action: `hook_received ${'x'.repeat(114)}…`,
      },
    ]);
  });
});

describe('audit() details', () => {
  it('keeps the first 16 fields and cuts long strings, so one line stays small whatever a bot passes', async () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${String(i).padStart(2, '0')}`, i]));
    const group = new RouteGroup('/api/webui/config').put('/', (c, request) => {
      request.audit('bulk', { note: 'y'.repeat(10_000), ...many });
      return c.json({ ok: true });
    });
    const { t, cookie } = await appWith(group);
    await t.request('/config', { method: 'PUT', json: {}, cookie });
    const [event] = t.audit.named('bot_action') as Array<{ details: Record<string, unknown> }>;
    expect(Object.keys(event?.details ?? {})).toHaveLength(16);
    expect(event?.details['note']).toBe(`${'y'.repeat(256)}…`);
    expect(event?.details['field_00']).toBe(0);
  });
});

describe('a whole Hono app mounted as a group', () => {
  it('needs a login, and the scope its method implies', async () => {
    const calls: string[] = [];
    const app = new Hono<WebuiEnv>()
      .get('/status', (c) => {
        calls.push('status');
        return c.json({ principal: c.get('principal').kind });
      })
      .post('/restart', (c) => {
        calls.push('restart');
        return c.json({ ok: true });
      });
    const { t, cookie } = await appWith(new RouteGroup('/api/webui/system', app));
    const reader = await t.createKey('reader', 'read');
    await expectErrorBody(await t.request('/system/status'), 401, 'not_authenticated');
    await expectErrorBody(await t.request('/system/restart', { method: 'POST', bearer: reader }), 403, 'insufficient_scope');
    await expectErrorBody(
      await t.request('/system/restart', { method: 'POST', cookie, headers: { origin: 'http://evil.example' } }),
      403,
      'origin_not_allowed',
    );
    expect(calls).toEqual([]);
    expect(await json(await t.request('/system/status', { bearer: reader }))).toEqual({ principal: 'key' });
    expect((await t.request('/system/restart', { method: 'POST', cookie })).status).toBe(200);
    expect(calls).toEqual(['status', 'restart']);
  });
});
