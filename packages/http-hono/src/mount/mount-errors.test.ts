import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { createTestApp } from '../testing/test-app.js';
import { MountError } from './mount-error.js';
import { RouteGroup } from './route-group.js';
import { extensionFeature } from '../feature.js';

const ok = (c: { json(body: unknown): Response }) => c.json({ ok: true });

/** The MountError createWebuiApp raises for these groups (the test fails when it raises none). */
async function mountError(...groups: RouteGroup[]): Promise<MountError> {
  const error: unknown = await createTestApp({ features: [extensionFeature('routes', { groups })] }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MountError);
  return error as MountError;
}

describe('a route group that cannot be mounted is a MountError naming the path, when the app is built', () => {
  it.each([
    ['/api/config', 'must be under /api/webui/'],
    ['/api/webui', 'must be under /api/webui/'],
    ['/api/webuiconfig', 'must be under /api/webui/'],
    ['config', 'must be under /api/webui/'],
    ['/api/webui/config/', 'empty segment'],
    ['/api/webui//config', 'empty segment'],
    ['/api/webui/../config', '. or .. segments'],
    ['/api/webui/config/*', 'may hold only'],
    ['/api/webui/person/:id', 'may hold only'],
    ['/api/webui/con fig', 'may hold only'],
  ])('%s: not a clean path under the prefix', async (path, why) => {
    const error = await mountError(new RouteGroup(path).get('/', ok));
    expect(error.what).toBe(path);
    expect(error.message).toContain(`cannot mount ${path}: `);
    expect(error.why).toContain(why);
  });

  it.each([
    ['/api/webui/auth', '/api/webui/auth/verify'],
    ['/api/webui/auth/verify', '/api/webui/auth/verify'],
    ['/api/webui/auth/verify/more', '/api/webui/auth/verify'],
    ['/api/webui/health', '/api/webui/health'],
    ['/api/webui/docs', '/api/webui/docs'],
    ['/api/webui/docs/extra', '/api/webui/docs'],
    ['/api/webui/ws', '/api/webui/ws'],
    ['/api/webui/openapi.json', '/api/webui/openapi.json'],
    ['/api/webui/keys/backup', '/api/webui/keys/:name'],
    ['/api/webui/security', '/api/webui/security/bans'],
    ['/api/webui/setup', '/api/webui/setup/status'],
  ])('%s: this server already answers it (or a path inside or around it)', async (path, own) => {
    const error = await mountError(new RouteGroup(path).get('/', ok));
    expect(error.what).toBe(path);
    expect(error.why).toContain('this server already answers');
    expect(error.why).toContain(own.split('/').slice(0, 4).join('/'));
  });

  it('two groups at the same path, or one inside the other', async () => {
    const same = await mountError(new RouteGroup('/api/webui/config'), new RouteGroup('/api/webui/config'));
    expect(same.message).toBe('cannot mount /api/webui/config: it overlaps the route group mounted at /api/webui/config');
    const nested = await mountError(new RouteGroup('/api/webui/plugins'), new RouteGroup('/api/webui/plugins/chat'));
    expect(nested.what).toBe('/api/webui/plugins/chat');
    // Side by side is fine.
    await expect(
      createTestApp({
        features: [extensionFeature('routes', { groups: [new RouteGroup('/api/webui/plugin'), new RouteGroup('/api/webui/plugins')] })],
      }),
    ).resolves.toBeDefined();
  });

  it('the same method and path twice in one group, parameter names aside', async () => {
    const error = await mountError(new RouteGroup('/api/webui/person').get('/:id', ok).get('/:name', ok));
    expect(error.message).toBe('cannot mount GET /api/webui/person/:name: the group declares this method and path twice');
    await expect(
      createTestApp({
        features: [extensionFeature('routes', { groups: [new RouteGroup('/api/webui/person').get('/:id', ok).put('/:id', ok)] })],
      }),
    ).resolves.toBeDefined();
  });

  it('a route declaration that contradicts itself or its path', async () => {
    const cases: Array<[RouteGroup, string, string]> = [
      [
        new RouteGroup('/api/webui/config').get('/', { public: true, scope: 'read' }, ok),
        'GET /api/webui/config',
        'a public route takes no scope',
      ],
      [new RouteGroup('/api/webui/config').post('/', { scope: 'read' }, ok), 'POST /api/webui/config', 'its scope is admin'],
      [new RouteGroup('/api/webui/config').get('/', { body: v.object({}) }, ok), 'GET /api/webui/config', 'a GET route takes no body'],
      [new RouteGroup('/api/webui/config').get('x', ok), 'GET /api/webui/configx', 'must start with /'],
      [new RouteGroup('/api/webui/config').get('/a/', ok), 'GET /api/webui/config/a/', 'empty segment'],
      [new RouteGroup('/api/webui/config').get('/*', ok), 'GET /api/webui/config/*', 'may hold only'],
      [new RouteGroup('/api/webui/config').get('/../auth', ok), 'GET /api/webui/config/../auth', '. or .. segments'],
      // A JavaScript caller can leave the handler out.
      [(new RouteGroup('/api/webui/config').get as (path: string) => RouteGroup)('/'), 'GET /api/webui/config', 'no handler'],
      [
        new RouteGroup('/api/webui/system', new Hono().get('/status/:id', ok)).get('/status/:name', ok),
        'GET /api/webui/system/status/:name',
        "the group's Hono app answers this method and path too",
      ],
    ];
    for (const [group, what, why] of cases) {
      const error = await mountError(group);
      expect(error.what).toBe(what);
      expect(error.why).toContain(why);
    }
  });

  it('mounts a whole Hono app, declared routes beside it, and an admin GET', async () => {
    const app = new Hono<WebuiEnv>().get('/status', ok);
    const group = new RouteGroup('/api/webui/system', app).get('/secrets', { scope: 'admin' }, ok);
    const plain = new RouteGroup('/api/webui/plain', new Hono().get('/status', ok));
    await expect(createTestApp({ features: [extensionFeature('routes', { groups: [group, plain] })] })).resolves.toBeDefined();
  });
});
