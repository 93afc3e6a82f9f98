import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { extensionFeature, RouteGroup, type RouteRequest } from '@webui/http-hono';
import { createTestApp, expectErrorBody, json, type TestRequest } from './testing/gateway-test-app.js';
import type { UpstreamOptions, UpstreamTransport } from './upstream-options.js';

// Moved from @webui/http-hono's auth-forward-routes and route-group tests: the cases that configure an upstream.
const PROXY = '127.0.0.1';

/** The proxy's subrequest for a caller at `client`: its credential passed on (as in auth-forward-routes.test.ts). */
function asked(client: string, init: TestRequest = {}) {
  return { peer: PROXY, ...init, headers: { 'x-forwarded-for': client, ...init.headers } };
}

/** A bot's config group, recording which routes ran (as in route-group.test.ts). */
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

describe('GET /auth/forward with an upstream configured', () => {
  it('is still answered here, never forwarded (even with paths = ["/"]), and carries the gateway’s assertion', async () => {
    const forwarded: Request[] = [];
    const upstream: UpstreamOptions = {
      origin: 'http://127.0.0.1:8002',
      paths: ['/'],
      publicPaths: [],
      headers: {},
      timeoutMs: 1_000,
      transport: async (request) => {
        forwarded.push(request);
        return new Response('from the upstream');
      },
      assertion: (identity, request) => `signed.${identity.principal.replace(':', '-')}.${identity.scope}.${request.method}${request.path}`,
    };
    const t = await createTestApp({ upstream, policy: { trustedProxies: [PROXY] } });
    const allowed = await t.request(
      '/auth/forward',
      asked('203.0.113.2', { bearer: await t.createKey('ci', 'admin'), headers: { 'x-forwarded-uri': '/bot/page' } }),
    );
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('x-webui-assertion')).toBe('signed.key-ci.admin.GET/bot/page');
    await expectErrorBody(await t.request('/auth/forward'), 401, 'not_authenticated');
    expect(forwarded).toEqual([]);
  });
});

describe('with an upstream for the whole prefix', () => {
  it("a group's paths, known or not, are this server's own and never forwarded; the rest still is", async () => {
    const forwarded: string[] = [];
    const transport: UpstreamTransport = async (request) => {
      forwarded.push(new URL(request.url).pathname);
      return new Response('{"from":"upstream"}', { headers: { 'content-type': 'application/json' } });
    };
    const { group, routes } = configGroup();
    const upstream = { origin: 'http://127.0.0.1:8002', paths: ['/api/webui'], publicPaths: [], headers: {}, timeoutMs: 30_000, transport };
    const { t, cookie } = await appWith(group, { upstream });
    expect(await json(await t.request('/config', { cookie }))).toEqual({ route: 'read config', body: null });
    await expectErrorBody(await t.request('/config/unknown', { cookie }), 404, 'not_found');
    await expectErrorBody(await t.request('/config/unknown'), 401, 'not_authenticated');
    expect((await t.request('/config/version')).status).toBe(200);
    expect(await json(await t.request('/plugins/list', { cookie }))).toEqual({ from: 'upstream' });
    expect(forwarded).toEqual(['/api/webui/plugins/list']);
    expect(routes()).toEqual(['read config', 'version']);
  });
});
