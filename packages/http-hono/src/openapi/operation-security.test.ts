import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { extensionFeature } from '../feature.js';
import { RouteGroup } from '../mount/route-group.js';
import { createTestApp, json, type TestApp } from '../testing/test-app.js';

type Operation = { security: unknown[]; description: string; 'x-webui-scope'?: string };

/** The app with metrics and a bot's groups (a read GET, an admin GET, a state change, a public route, a whole Hono app). */
async function appWithGroups(): Promise<TestApp> {
  const ok = (c: { json(body: unknown): Response }) => c.json({});
  const config = new RouteGroup('/api/webui/config')
    .get('/', ok)
    .put('/', { body: v.object({ name: v.string() }) }, ok)
    .get('/version', { public: true }, ok)
    .get('/secrets', { scope: 'admin' }, ok);
  const system = new RouteGroup('/api/webui/system', new Hono<WebuiEnv>().get('/status', ok).post('/restart', ok));
  return createTestApp({
    features: [extensionFeature('routes', { groups: [config, system] })],
    metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: '' }),
  });
}

/** Every operation of the app's document but the channel's handshake, which a ticket opens, by "METHOD /path". */
async function documented(t: TestApp): Promise<Map<string, Operation>> {
  const document = (await json(await t.request('/openapi.json'))) as { paths: Record<string, Record<string, Operation>> };
  const operations = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) operations.set(`${method.toUpperCase()} ${path}`, operation);
  return operations;
}

describe('each operation says who may call it (issue 45)', () => {
  it('names its scope in x-webui-scope and in a sentence: none when public, read, admin or the access token', async () => {
    const operations = await documented(await appWithGroups());
    const scopes = Object.fromEntries([...operations].map(([name, operation]) => [name, operation['x-webui-scope'] ?? null]));
    expect(scopes).toMatchObject({
      'GET /api/webui/health': null,
      'POST /api/webui/auth/verify': null,
      'GET /api/webui/config/version': null,
      'GET /api/webui/setup/status': 'read',
      'GET /api/webui/ws-token': 'read',
      'GET /api/webui/ws': 'read',
      'GET /api/webui/config': 'read',
      'GET /api/webui/system/status': 'read',
      'POST /api/webui/setup/complete': 'admin',
      'GET /api/webui/metrics': 'admin',
      'GET /api/webui/config/secrets': 'admin',
      'PUT /api/webui/config': 'admin',
      'POST /api/webui/system/restart': 'admin',
      'POST /api/webui/keys': 'access_token',
      'DELETE /api/webui/keys/{name}': 'access_token',
      'POST /api/webui/auth/update': 'access_token',
      'POST /api/webui/auth/regenerate': 'access_token',
    });
    for (const [name, operation] of operations) {
      const scope = operation['x-webui-scope'];
      if (scope === undefined) {
        expect(operation.security, name).toEqual([]);
        expect(operation.description, name).toMatch(/ Public: no credential\.$/);
      } else {
        expect(operation.security, name).not.toEqual([]);
        expect(operation.description, name).toMatch(new RegExp(` Scope \`${scope}\`: [^.]+(\\.|;)`));
      }
    }
  });

  it('as the app does: a read key is refused exactly where the scope is not read, an admin key where it is access_token', async () => {
    const t = await appWithGroups();
    const keys = { read: await t.createKey('reader', 'read'), admin: await t.createKey('operator', 'admin') };
    const refusals = { read: [] as string[], admin: [] as string[] };
    const expected = { read: [] as string[], admin: [] as string[] };
    for (const [name, operation] of await documented(t)) {
      const scope = operation['x-webui-scope'];
      if (scope === undefined || name === 'GET /api/webui/ws') continue;
      if (scope !== 'read') expected.read.push(name);
      if (scope === 'access_token') expected.admin.push(name);
      const [method, path] = name.split(' ') as [string, string];
      for (const key of ['read', 'admin'] as const) {
        const target = `/${path.replace(/\{[^}]+\}/g, 'probe')}`;
        const res = await t.request(target, { method, bearer: keys[key], ...(method === 'GET' ? {} : { json: {} }) });
        if (res.status !== 403) continue;
        const body = await json(res);
        if (body.code !== 'insufficient_scope') continue;
        refusals[key].push(name);
        // A read key meets the method's step first (every access_token operation changes state), an admin key the route's own.
        expect(body.required, `${name} with a ${key} key`).toBe(key === 'read' ? 'admin' : 'access_token');
      }
    }
    expect(refusals.read.sort()).toEqual(expected.read.sort());
    expect(refusals.admin.sort()).toEqual(expected.admin.sort());
    expect(expected.admin).toHaveLength(4);
  });
});
