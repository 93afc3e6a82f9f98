import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../../app-env.js';
import { buildOpenApiDocument } from '../../openapi/openapi-document.js';
import { documentedResponses } from '../../openapi/documented-responses.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { identifyAndAdmitClient } from '../../middleware/identify-and-admit-client.js';
import { createTestApp, expectErrorBody, LISTEN_ORIGIN, testPolicy, type TestRequest } from '../../testing/test-app.js';
import type { AssertedRequest, AssertionSigner, CallerIdentity } from './caller-identity.js';
import { authForwardRoutes } from './auth-forward-routes.js';

const PROXY = '127.0.0.1';
/** A server that believes the proxy on 127.0.0.1; the callers come from their own addresses, as X-Forwarded-For says. */
const behindProxy = () => createTestApp({ policy: { trustedProxies: [PROXY] } });

/** The proxy's subrequest for a caller at `client`: its credential and Origin passed on, the original method named. */
function asked(client: string, init: TestRequest & { original?: string; header?: 'x-forwarded-method' | 'x-original-method' } = {}) {
  const { original, header = 'x-forwarded-method', ...rest } = init;
  const headers: Record<string, string> = { 'x-forwarded-for': client, ...rest.headers };
  if (original !== undefined) headers[header] = original;
  return { peer: PROXY, ...rest, headers };
}

async function expectAllowed(res: Response, principal: string, scope: string): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(204);
  expect(await res.text()).toBe('');
  expect(res.headers.get('x-webui-principal')).toBe(principal);
  expect(res.headers.get('x-webui-scope')).toBe(scope);
  expect(res.headers.get('x-webui-assertion')).toBeNull();
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('GET /auth/forward: who may pass the proxy', () => {
  it('lets a logged-in cookie through as the admin session, and an API key as itself with its scope', async () => {
    const t = await behindProxy();
    const cookie = await t.login();
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.1', { cookie })), 'session', 'admin');
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.1', { bearer: t.token, original: 'POST' })), 'session', 'admin');
    const admin = await t.createKey('deploy', 'admin');
    await expectAllowed(
      await t.request('/auth/forward', asked('203.0.113.2', { bearer: admin, original: 'DELETE' })),
      'key:deploy',
      'admin',
    );
    const reader = await t.createKey('grafana', 'read');
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.3', { bearer: reader })), 'key:grafana', 'read');
  });

  it('refuses without a credential, and a wrong cookie or bearer, with the session guard’s error answers (docs/decisions/0001-error-bodies.md) and no-store', async () => {
    const t = await behindProxy();
    const none = await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.4')), 401, 'not_authenticated');
    expect(none.detail).toMatch(/Login required/);
    const res = await t.request('/auth/forward', asked('203.0.113.4', { cookie: 'wrong' }));
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectErrorBody(res, 401, 'invalid_session');
    await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.4', { bearer: 'wk_wrong' })), 401, 'invalid_credentials');
  });

  it('answers 400 for two credentials, counted as a guess', async () => {
    const t = await behindProxy();
    const res = await t.request('/auth/forward', asked('203.0.113.5', { headers: { cookie: 'bot_session=a; bot_session=b' } }));
    await expectErrorBody(res, 400, 'duplicate_credentials');
    expect(t.audit.named('login_failed').map((event) => [event.address, event.counted])).toEqual([['203.0.113.5', true]]);
  });

  it('counts each wrong credential as a guess against the caller the proxy names: the fifth bans it, then 429 with Retry-After', async () => {
    const t = await behindProxy();
    for (let n = 1; n <= 4; n++) {
      await expectErrorBody(
        await t.request('/auth/forward', asked('203.0.113.6', { bearer: `wk_guess_${n}` })),
        401,
        'invalid_credentials',
      );
    }
    const banned = await t.request('/auth/forward', asked('203.0.113.6', { bearer: 'wk_guess_5' }));
    expect(banned.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = await expectErrorBody(banned, 429, 'too_many_attempts');
    expect(body.retry_after).toBe(Number(banned.headers.get('retry-after')));
    // The right token is refused too while banned, and only that caller is banned, not the proxy.
    await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.6', { bearer: t.token })), 429, 'too_many_attempts');
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.7', { bearer: t.token })), 'session', 'admin');
    expect(t.audit.named('ban_started').map((event) => event.address)).toEqual(['203.0.113.6']);
  });
});

describe('GET /auth/forward: the original method', () => {
  it('holds a read key to reading: a state change through the proxy is 403 insufficient_scope, from either header', async () => {
    const t = await behindProxy();
    const reader = await t.createKey('reader', 'read');
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) {
      await expectAllowed(
        await t.request('/auth/forward', asked('203.0.113.8', { bearer: reader, original: method })),
        'key:reader',
        'read',
      );
    }
    for (const header of ['x-forwarded-method', 'x-original-method'] as const) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
        const res = await t.request('/auth/forward', asked('203.0.113.8', { bearer: reader, original: method, header }));
        const body = await expectErrorBody(res, 403, 'insufficient_scope');
        expect(body.required).toBe('admin');
      }
    }
  });

  it('takes the stricter of the two headers: a GET the caller forged beside the proxy’s POST lowers nothing', async () => {
    const t = await behindProxy();
    const reader = await t.createKey('reader', 'read');
    const headers = { 'x-forwarded-method': 'GET', 'x-original-method': 'POST' };
    await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.9', { bearer: reader, headers })), 403, 'insufficient_scope');
    const reversed = { 'x-forwarded-method': 'POST', 'x-original-method': 'GET' };
    const res = await t.request('/auth/forward', asked('203.0.113.9', { bearer: reader, headers: reversed }));
    await expectErrorBody(res, 403, 'insufficient_scope');
  });

  it('answers the method the proxy names, whatever a method-override header says (issue 42)', async () => {
    const t = await behindProxy();
    const reader = await t.createKey('reader', 'read');
    const overrides = ['x-http-method-override', 'x-http-method', 'x-method-override', 'X_HTTP_Method_Override'];
    for (const name of overrides) {
      const lowered = asked('203.0.113.10', { bearer: reader, original: 'POST', headers: { [name]: 'GET' } });
      await expectErrorBody(await t.request('/auth/forward', lowered), 403, 'insufficient_scope');
      const raised = asked('203.0.113.10', { bearer: reader, original: 'GET', headers: { [name]: 'DELETE' } });
      await expectAllowed(await t.request('/auth/forward', raised), 'key:reader', 'read');
    }
  });

  it('ignores the method headers from a peer that is not a trusted proxy: the question is then about a GET', async () => {
    const t = await createTestApp();
    const reader = await t.createKey('reader', 'read');
    const res = await t.request('/auth/forward', {
      bearer: reader,
      headers: { 'x-forwarded-method': 'POST', 'x-original-method': 'DELETE' },
    });
    await expectAllowed(res, 'key:reader', 'read');
    // Nor does such a peer choose whose guesses are counted: its own address is.
    await expectErrorBody(
      await t.request('/auth/forward', { bearer: 'wk_x', headers: { 'x-forwarded-for': '198.51.100.1' } }),
      401,
      'invalid_credentials',
    );
    expect(t.audit.named('login_failed').map((event) => event.address)).toEqual(['127.0.0.5']);
  });

  it('applies the CSRF rule to a state change: the Origin the proxy passes on must be allowed, and a refusal counts no guess', async () => {
    const t = await behindProxy();
    const cookie = await t.login();
    const foreign = { cookie, original: 'POST', headers: { origin: 'http://evil.example' } };
    for (let n = 0; n < 6; n++)
      await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.10', foreign)), 403, 'origin_not_allowed');
    const crossSite = { cookie, original: 'DELETE', headers: { 'sec-fetch-site': 'cross-site' } };
    await expectErrorBody(await t.request('/auth/forward', asked('203.0.113.10', crossSite)), 403, 'cross_site_request');
    // The same Origin on a read, the server's own Origin on a write, and a bearer (no browser sends one cross-site): allowed.
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.10', { ...foreign, original: 'GET' })), 'session', 'admin');
    const own = { cookie, original: 'POST', headers: { origin: LISTEN_ORIGIN } };
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.10', own)), 'session', 'admin');
    const bearer = { bearer: t.token, original: 'POST', headers: { origin: 'http://evil.example' } };
    await expectAllowed(await t.request('/auth/forward', asked('203.0.113.10', bearer)), 'session', 'admin');
    expect(t.audit.named('login_failed')).toEqual([]);
  });
});

describe('GET /auth/forward: the signed assertion', () => {
  /** An app whose one route is /auth/forward with a recording signer, behind the trusted proxy on 127.0.0.5. */
  function signingApp(proxies: string[] = ['127.0.0.5']) {
    const signed: [CallerIdentity, AssertedRequest][] = [];
    const assertion: AssertionSigner = (identity, request) => {
      signed.push([identity, request]);
      return 'aaa.bbb.ccc';
    };
    const policy = testPolicy({ trustedProxies: proxies });
    const principal = { kind: 'key' as const, session: 'h', name: 'ci', scope: 'admin' as const, firstUse: false };
    const operations = {
      authenticate: async () => ({ outcome: { kind: 'valid' as const, principal, via: 'bearer' as const }, events: [] }),
    };
    const runtime = { getConnInfo: () => ({ remote: { address: '127.0.0.5' } }) };
    const app = new Hono<WebuiEnv>()
      .use(
        identifyAndAdmitClient(
          runtime,
          policy,
          () => undefined,
          () => undefined,
        ),
      )
      .route(
        '/',
        authForwardRoutes(operations, policy, () => undefined, assertion),
      );
    const ask = (headers: Record<string, string>) =>
      app.request('http://127.0.0.1:8001/auth/forward', { headers: { host: '127.0.0.1:8001', ...headers } });
    return { signed, ask };
  }

  it('adds X-WebUI-Assertion of the caller, made for the method and path (no query) the trusted proxy names', async () => {
    const { signed, ask } = signingApp();
    const res = await ask({ 'x-forwarded-method': 'POST', 'x-forwarded-uri': '/api/chat/send?session=a' });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-webui-assertion')).toBe('aaa.bbb.ccc');
    const nginx = await ask({ 'x-original-method': 'DELETE', 'x-original-uri': '/plugins/x' });
    expect(nginx.headers.get('x-webui-assertion')).toBe('aaa.bbb.ccc');
    expect(signed.map(([identity, request]) => `${identity.principal} ${identity.scope} ${request.method} ${request.path}`)).toEqual([
      'key:ci admin POST /api/chat/send',
      'key:ci admin DELETE /plugins/x',
    ]);
  });

  it.each([
    ['no path named', {}],
    ['two paths that disagree (a forged one passed through)', { 'x-forwarded-uri': '/a', 'x-original-uri': '/b' }],
    ['a target that is not a path', { 'x-forwarded-uri': 'http://evil.example/a' }],
    ['a path with a control character', { 'x-forwarded-uri': '/a\tb' }],
  ])('makes none for %s: the caller is still named, a bot that checks the assertion refuses', async (_why, headers) => {
    const { signed, ask } = signingApp();
    const res = await ask(headers);
    expect(res.status).toBe(204);
    expect(res.headers.get('x-webui-principal')).toBe('key:ci');
    expect(res.headers.get('x-webui-assertion')).toBeNull();
    expect(signed).toEqual([]);
  });

  it('makes none for a path named by a peer that is not a trusted proxy', async () => {
    const { signed, ask } = signingApp([]);
    const res = await ask({ 'x-forwarded-uri': '/api/chat/send' });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-webui-assertion')).toBeNull();
    expect(signed).toEqual([]);
  });
});

describe('GET /auth/forward in the OpenAPI document', () => {
  it('documents the 204 with the headers its answers carry, and the refusals', async () => {
    const operation = OPERATIONS.find((op) => op.method === 'get' && op.path === '/auth/forward');
    if (!operation) throw new Error('not documented');
    const responses = documentedResponses(operation);
    expect([...responses.keys()]).toEqual([204, 400, 401, 403, 429, 503]);
    const allowed = responses.get(204);
    expect(allowed?.schemas).toEqual([]);
    const t = await behindProxy();
    const reader = await t.createKey('reader', 'read');
    const res = await t.request('/auth/forward', asked('203.0.113.11', { bearer: reader }));
    for (const [name, header] of Object.entries(allowed?.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null && !header.required) continue;
      expect(v.safeParse(header.schema, value).issues, name).toBeUndefined();
    }
    const document = buildOpenApiDocument({ serviceName: 'webui', version: '1', prefix: '/api/webui' }) as {
      paths: Record<string, { get: { responses: Record<string, { content?: unknown; headers?: Record<string, unknown> }> } }>;
    };
    const documented = document.paths['/api/webui/auth/forward']?.get.responses['204'];
    expect(documented?.content).toBeUndefined();
    expect(documented?.headers).toEqual({
      'X-WebUI-Principal': { required: true, schema: { $ref: '#/components/schemas/ForwardPrincipalHeader' } },
      'X-WebUI-Scope': { required: true, schema: { $ref: '#/components/schemas/ForwardScopeHeader' } },
      'X-WebUI-Assertion': { schema: { $ref: '#/components/schemas/ForwardAssertionHeader' } },
    });
  });
});
