import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from './app-env.js';
import { extensionFeature, type Feature } from './feature.js';
import { channelDomains, channelRelay, featureForwarding, FeatureSet } from './feature-set.js';
import { RouteGroup } from './mount/route-group.js';
import { OPERATIONS } from './openapi/operations.js';
import { PIPELINE } from './pipeline.js';
import { createTestApp, expectErrorBody, json } from './testing/test-app.js';
import { ChannelDomain } from './features/channel/domains/channel-domain.js';

const statusFeature: Feature = {
  name: 'status',
  routes: new Hono<WebuiEnv>().get('/status/public', (c) => c.json({ open: true })).get('/status/private', (c) => c.json({ open: false })),
  publicPaths: ['/status/public'],
  operations: [
    {
      method: 'get',
      path: '/status/public',
      summary: 'Open status',
      description: 'Answers without a login.',
      access: 'public',
      responses: { 200: { description: 'The status.', schema: v.object({ open: v.boolean() }) } },
    },
  ],
};

describe('a feature registered through the Feature interface', () => {
  it('is public on the paths it names, and behind the login everywhere else', async () => {
    const t = await createTestApp({ features: [statusFeature] });
    const open = await t.request('/status/public');
    expect(open.status).toBe(200);
    expect(await json(open)).toEqual({ open: true });
    await expectErrorBody(await t.request('/status/private'), 401, 'not_authenticated');
    const cookie = await t.login();
    expect((await t.request('/status/private', { cookie })).status).toBe(200);
  });

  it('is documented after the built-in features, in the order given', async () => {
    const t = await createTestApp({ features: [statusFeature] });
    const paths = Object.keys((await json(await t.request('/openapi.json'))).paths as object);
    expect(paths.at(-1)).toBe('/api/webui/status/public');
    expect(paths.slice(0, -1)).toEqual([...new Set(OPERATIONS.map((operation) => `/api/webui${operation.path}`))]);
  });

  it('owns its paths: a route group cannot be mounted on them', async () => {
    await expect(
      createTestApp({
        features: [
          statusFeature,
          extensionFeature('routes', { groups: [new RouteGroup('/api/webui/status').get('/', (c) => c.text('x'))] }),
        ],
      }),
    ).rejects.toThrow(/cannot mount/);
  });
});

describe("a feature's forwarded paths", () => {
  const forwarding: Feature = {
    name: 'elsewhere',
    forwarding: {
      paths: ({ ownPaths }) => ({
        guardedPatterns: (prefix) => [`${prefix}/*`, '/bot/*'],
        isForwarded: (path) => path.startsWith('/bot/') && !ownPaths.includes(path),
        isPublic: (path, method) => path === '/bot/open' && method === 'GET',
        forward: (c) => c.json({ forwarded: c.req.path }),
      }),
    },
  };

  it('end the pipeline: a forwarded path gets the handler behind the login, unless the feature makes it public', async () => {
    const t = await createTestApp({ features: [forwarding] });
    expect(await json(await t.request('//bot/open'))).toEqual({ forwarded: '/bot/open' });
    await expectErrorBody(await t.request('//bot/closed'), 401, 'not_authenticated');
    const cookie = await t.login();
    expect(await json(await t.request('//bot/closed', { cookie }))).toEqual({ forwarded: '/bot/closed' });
  });

  it('belong to one feature at most', async () => {
    expect(featureForwarding([{ name: 'none' }, forwarding])).toBe(forwarding.forwarding);
    await expect(createTestApp({ features: [forwarding, { ...forwarding, name: 'twice' }] })).rejects.toThrow(
      /another feature forwards paths/,
    );
  });

  it('and the channel relay: one feature at most', () => {
    const relay = { open: () => ({ forward() {}, subscribeLogs() {}, unsubscribeLogs() {}, logsSubscribed: false, close() {} }) };
    expect(channelRelay([{ name: 'none' }])).toBeUndefined();
    expect(channelRelay([{ name: 'none' }, { name: 'gateway', relay }])).toBe(relay);
    expect(() =>
      channelRelay([
        { name: 'gateway', relay },
        { name: 'twice', relay },
      ]),
    ).toThrow(/another feature relays/);
  });
});

describe('FeatureSet', () => {
  it('computes the public paths once: exact ones, and everything below a /* prefix', () => {
    const set = new FeatureSet([
      { name: 'a', publicPaths: ['/a', '/docs/*'] },
      { name: 'b', publicPaths: ['/b'] },
    ]);
    expect(['/a', '/b', '/docs/x', '/docs/x/y'].map(set.isPublicPath)).toEqual([true, true, true, true]);
    expect(['/a/', '/ab', '/docs', '/c'].map(set.isPublicPath)).toEqual([false, false, false, false]);
  });

  it('lists own paths, operations and groups in the features order; channelDomains the domains', () => {
    const group = new RouteGroup('/api/webui/config');
    const domain = new ChannelDomain('chat', {});
    const set = new FeatureSet([statusFeature, extensionFeature('bot', { groups: [group], domains: [domain] })]);
    expect(set.ownPaths()).toEqual(['/status/public', '/status/public', '/status/private']);
    expect(set.operations().map((operation) => operation.path)).toEqual(['/status/public']);
    expect(set.groups).toEqual([group]);
    expect(channelDomains(set.features)).toEqual([domain]);
  });
});

describe('the pipeline', () => {
  it('lists its steps once, in order, with the fused ones named', () => {
    expect(PIPELINE.map((step) => step.step)).toEqual(['audit-hold', 'edge', 'log', 'cors', 'csrf+body-limit', 'session+scope']);
  });
});
