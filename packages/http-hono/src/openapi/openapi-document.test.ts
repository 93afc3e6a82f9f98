import { Validator } from '@seriousme/openapi-schema-validator';
import { createCoreHarness } from '@webui/core/testing';
import { Hono, type MiddlewareHandler } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { API_PREFIX, createWebuiApp } from '../app.js';
import { RouteGroup } from '../mount/route-group.js';
import { METRICS_OPERATION } from '../features/metrics/metrics-routes.js';
import { createTestApp, RecordingLogger } from '../testing/test-app.js';
import { PluginProgressBoard } from '../features/channel/domains/plugin-progress-board.js';
import { PluginProgressDomain } from '../features/channel/domains/plugin-progress-domain.js';
import { WsHub } from '../features/channel/hub/ws-hub.js';
import { responseSchema } from './documented-responses.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { OPERATIONS } from './operations.js';
import { extensionFeature } from '../feature.js';

type Paths = Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;

/** The app with every optional part mounted, so its route table is complete. */
function fullApp() {
  const harness = createCoreHarness();
  const logger = new RecordingLogger();
  const hub = new WsHub({
    logs: { recent: () => [], subscribe: () => () => undefined },
    domains: [new PluginProgressDomain(new PluginProgressBoard())],
    logger,
    now: () => 0,
    newConnectionId: () => 'c',
  });
  // The route table is what matters here; no socket is ever opened.
  const upgrade = (): MiddlewareHandler => async (_c, next) => next();
  const docs: MiddlewareHandler = async (c) => c.text('docs');
  return createWebuiApp({
    services: harness,
    policy: {
      serviceName: 'webui',
      mode: 'development',
      secureCookie: false,
      sessionExpireDays: 7,
      trustedProxies: [],
      allowedIps: [],
      allowedOrigins: [],
      allowedHosts: [],
      listenOrigins: () => [],
      loopbackOnly: false,
    },
    runtime: { getConnInfo: () => ({ remote: { address: '127.0.0.1' } }) },
    logger,
    webSocket: { upgrade, hub },
    docs,
    metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: '' }),
  });
}

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument({ serviceName: 'webui', version: '1.2.3', prefix: API_PREFIX, mounted: [METRICS_OPERATION] });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route the app serves, and nothing it does not', () => {
    const served = new Set(
      fullApp()
        .routes.filter(
          (route) => route.method !== 'ALL' && route.path.startsWith(`${API_PREFIX}/`) && !route.path.startsWith(`${API_PREFIX}/docs`),
        )
        .filter((route) => route.path !== `${API_PREFIX}/openapi.json`)
        // Hono writes path parameters as :name, OpenAPI as {name}.
        .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const paths = document.paths as Paths;
    const documented = new Set(
      Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`)),
    );
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('names each operation once, in letters and digits only, as code generators need', () => {
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(ids).toContain('deleteKeysName');
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists /metrics with its Prometheus text only when the app serves it', async () => {
    const metrics = (document.paths as Paths)[`${API_PREFIX}/metrics`]?.get as { responses: Record<string, { content?: object }> };
    expect(Object.keys(metrics.responses['200']?.content ?? {})).toEqual(['text/plain']);
    const withoutMetrics = (await (await (await createTestApp()).request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(withoutMetrics.paths)).not.toContain(`${API_PREFIX}/metrics`);
  });

  it('describes the cookie and bearer security schemes and offers either on login-required endpoints', () => {
    const components = document.components as {
      securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
    };
    expect(components.securitySchemes.botSession).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'bot_session' }));
    expect(components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    const paths = document.paths as Paths;
    for (const path of ['/auth/update', '/auth/regenerate', '/setup/complete', '/setup/reset', '/keys']) {
      expect(paths[`${API_PREFIX}${path}`]?.post?.security).toEqual([{ botSession: [] }, { bearerAuth: [] }]);
      expect(Object.keys(paths[`${API_PREFIX}${path}`]?.post?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '401', '403', '429']),
      );
    }
    expect(paths[`${API_PREFIX}/auth/verify`]?.post?.security).toEqual([]);
  });

  it('lists every error answer of a body-taking endpoint with the error body (docs/decisions/0001-error-bodies.md)', () => {
    type JsonSchema = { $ref?: string; required?: string[] };
    const responses = (document.paths as Paths)[`${API_PREFIX}/auth/verify`]?.post?.responses as Record<
      string,
      { content?: { 'application/json': { schema: JsonSchema } } }
    >;
    // The bodies are components, referenced by name.
    const components = (document.components as { schemas: Record<string, JsonSchema> }).schemas;
    const resolved = (schema: JsonSchema | undefined) =>
      schema?.$ref ? components[schema.$ref.replace('#/components/schemas/', '')] : schema;
    for (const status of ['400', '403', '413', '415', '422', '429']) {
      expect(resolved(responses[status]?.content?.['application/json'].schema)?.required).toEqual(
        expect.arrayContaining(['detail', 'code']),
      );
    }
  });

  it('names every wire shape once, as a component, and documents the API key of /auth/check', () => {
    const components = (document.components as { schemas: Record<string, { oneOf?: Array<{ properties: Record<string, unknown> }> }> })
      .schemas;
    expect(Object.keys(components)).toEqual(
      expect.arrayContaining(['ErrorBody', 'CheckResponse', 'VerifyResponse', 'ServerEnvelope', 'LogEntry', 'PluginProgress']),
    );
    expect(components['CheckResponse']?.oneOf?.[0]?.properties).toHaveProperty('key');
    const check = (document.paths as Paths)[`${API_PREFIX}/auth/check`]?.get?.responses['200'];
    expect(check).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/CheckResponse' } } } });
  });

  it("lists a bot's mounted routes with their schemas, guards and tags, and still validates", async () => {
    const Section = v.object({ name: v.string(), level: v.picklist(['info', 'debug']) });
    const ok = (c: { json(body: unknown): Response }) => c.json({});
    const group = new RouteGroup('/api/webui/config')
      .get('/', { summary: 'Read the config', response: Section }, ok)
      .put('/sections/:name', { body: Section, response: Section, tag: 'settings' }, ok)
      .get('/version', { public: true }, ok)
      .get('/secrets', { scope: 'admin' }, ok);
    const whole = new RouteGroup(
      '/api/webui/system',
      new Hono<WebuiEnv>().get('/status', ok).use('*', async (_c, next) => next()),
    );
    const t = await createTestApp({ features: [extensionFeature('routes', { groups: [group, whole] })] });
    const document = (await (await t.request('/openapi.json')).json()) as Record<string, unknown>;
    const validator = new Validator();
    expect((await validator.validate(document)).errors).toBeUndefined();

    type Op = { summary: string; tags: string[]; security: unknown[]; responses: Record<string, { content?: unknown }> };
    type Described = Op & {
      parameters?: Array<{ name: string; in: string }>;
      requestBody?: { content: Record<string, { schema: unknown }> };
    };
    const paths = document.paths as Record<string, Record<string, Described>>;
    const read = paths['/api/webui/config']?.get;
    expect(read).toMatchObject({ summary: 'Read the config', tags: ['config'], security: [{ botSession: [] }, { bearerAuth: [] }] });
    expect(Object.keys(read?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    expect(read?.responses['200']?.content).toEqual({
      'application/json': { schema: expect.objectContaining({ required: ['name', 'level'] }) },
    });
    const put = paths['/api/webui/config/sections/{name}']?.put;
    expect(put?.tags).toEqual(['settings']);
    expect(put?.parameters).toEqual([expect.objectContaining({ name: 'name', in: 'path' })]);
    expect(put?.requestBody?.content['application/json']?.schema).toEqual(expect.objectContaining({ required: ['name', 'level'] }));
    expect(Object.keys(put?.responses ?? {})).toEqual(expect.arrayContaining(['400', '413', '415', '422']));
    const version = paths['/api/webui/config/version']?.get;
    expect(version?.security).toEqual([]);
    expect(Object.keys(version?.responses ?? {})).not.toContain('401');
    expect(paths['/api/webui/config/secrets']?.get).toMatchObject({ 'x-webui-scope': 'admin' });
    expect(paths['/api/webui/system/status']?.get?.tags).toEqual(['system']);
    expect(Object.keys(paths).filter((path) => path.startsWith('/api/webui/system'))).toEqual(['/api/webui/system/status']);
  });

  it('is served at /api/webui/openapi.json without a session', async () => {
    const t = await createTestApp();
    const res = await t.request('/openapi.json');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});

describe('real answers match the documented schemas', () => {
  const schemaFor = (method: string, path: string, status: number) => {
    const operation = OPERATIONS.find((op) => op.method === method && op.path === path);
    const schema = operation && responseSchema(operation, status);
    if (!schema) throw new Error(`no documented ${status} for ${method} ${path}`);
    return schema;
  };
  const expectDocumented = async (res: Response, method: string, path: string) => {
    const body: unknown = await res.json();
    const parsed = v.safeParse(schemaFor(method, path, res.status), body);
    expect(parsed.issues, `${method} ${path} ${res.status} ${JSON.stringify(body)}`).toBeUndefined();
  };

  it('for a whole first-setup walk, failures and bans included', async () => {
    const t = await createTestApp();
    await expectDocumented(await t.request('/health'), 'get', '/health');
    await expectDocumented(await t.request('/auth/check'), 'get', '/auth/check');
    await expectDocumented(await t.request('/ws-token'), 'get', '/ws-token');
    await expectDocumented(await t.request('/setup/status'), 'get', '/setup/status');
    for (let i = 0; i < 4; i++) await expectDocumented(await t.verify('wrong', { peer: '127.0.0.9' }), 'post', '/auth/verify');
    await expectDocumented(await t.verify('wrong', { peer: '127.0.0.9' }), 'post', '/auth/verify');
    await expectDocumented(await t.verify(t.token), 'post', '/auth/verify');
    const cookie = await t.login();
    await expectDocumented(await t.request('/auth/check', { cookie }), 'get', '/auth/check');
    await expectDocumented(await t.request('/setup/status', { cookie }), 'get', '/setup/status');
    await expectDocumented(await t.request('/ws-token', { cookie }), 'get', '/ws-token');
    await expectDocumented(await t.request('/setup/complete', { method: 'POST', cookie }), 'post', '/setup/complete');
    await expectDocumented(await t.request('/setup/reset', { method: 'POST', cookie }), 'post', '/setup/reset');
    await expectDocumented(await t.request('/auth/update', { cookie, json: { new_token: 'weak' } }), 'post', '/auth/update');
    await expectDocumented(await t.request('/auth/update', { cookie, json: { new_token: 'Strong-Token-1!' } }), 'post', '/auth/update');
    const next = await t.login('Strong-Token-1!');
    await expectDocumented(await t.request('/auth/regenerate', { method: 'POST', cookie: next }), 'post', '/auth/regenerate');
    await expectDocumented(await t.request('/auth/logout', { method: 'POST' }), 'post', '/auth/logout');
  });
});
