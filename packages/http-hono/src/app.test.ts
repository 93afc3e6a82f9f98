import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from './app-env.js';
import { MAX_BODY_BYTES } from './app.js';
import { RouteGroup } from './mount/route-group.js';
import { createTestApp, expectErrorBody, json, RecordingLogger, sessionCookieValue, type TestApp } from './testing/test-app.js';
import { extensionFeature } from './feature.js';

const KNOWN_TOKEN = 'Known;Secret,Token!42';

/** One request for each error the API can answer, with the status and code it must carry. */
async function everyError(t: TestApp): Promise<Array<{ name: string; res: Response; status: number; code: string }>> {
  const cookie = await t.login();
  const big = JSON.stringify({ token: 'x'.repeat(MAX_BODY_BYTES) });
  const cases: Array<{ name: string; res: Response; status: number; code: string }> = [
    {
      name: 'bad json',
      res: await t.request('/auth/verify', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } }),
      status: 400,
      code: 'invalid_json',
    },
    { name: 'weak token', res: await t.request('/auth/update', { cookie, json: { new_token: 'weak' } }), status: 400, code: 'weak_token' },
    { name: 'no session', res: await t.request('/setup/status'), status: 401, code: 'not_authenticated' },
    { name: 'wrong session', res: await t.request('/setup/status', { cookie: 'wrong' }), status: 401, code: 'invalid_session' },
    {
      name: 'foreign origin',
      res: await t.request('/auth/logout', { method: 'POST', headers: { origin: 'http://localhost:6666' } }),
      status: 403,
      code: 'origin_not_allowed',
    },
    { name: 'foreign host', res: await t.request('/health', { host: 'evil.example' }), status: 403, code: 'host_not_allowed' },
    { name: 'refused ip', res: await t.request('/health', { peer: '198.51.100.1' }), status: 403, code: 'ip_not_allowed' },
    { name: 'unknown path', res: await t.request('/nope', { cookie }), status: 404, code: 'not_found' },
    { name: 'outside prefix', res: await t.request('//nope'), status: 404, code: 'not_found' },
    {
      name: 'too large',
      res: await t.request('/auth/verify', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'not json',
      res: await t.request('/auth/verify', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }),
      status: 415,
      code: 'unsupported_media_type',
    },
    { name: 'bad shape', res: await t.request('/auth/verify', { method: 'POST', json: { token: 1 } }), status: 422, code: 'invalid_body' },
  ];
  for (let i = 0; i < 4; i++) await t.verify(`wrong-${i}`);
  cases.push({ name: 'ban', res: await t.verify('wrong-5'), status: 429, code: 'too_many_attempts' });
  cases.push({ name: 'banned', res: await t.request('/auth/check', { cookie }), status: 429, code: 'too_many_attempts' });
  return cases;
}

describe('createWebuiApp', () => {
  it('answers every error with a JSON error body (docs/decisions/0001-error-bodies.md): string detail, snake_case code', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['127.0.0.0/8'] } });
    for (const { name, res, status, code } of await everyError(t)) {
      expect(res.status, name).toBe(status);
      await expectErrorBody(res, status, code);
    }
  });

  it('marks every answer Cache-Control: no-store, errors included', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['127.0.0.0/8'] } });
    for (const { name, res } of await everyError(t)) expect(res.headers.get('cache-control'), name).toBe('no-store');
    const cookie = await t.login(t.token, { peer: '127.0.0.7' });
    const answers = {
      health: await t.request('/health'),
      verify: await t.verify(t.token, { peer: '127.0.0.8' }),
      check: await t.request('/auth/check', { peer: '127.0.0.7', cookie }),
      wsToken: await t.request('/ws-token', { peer: '127.0.0.7', cookie }),
      setup: await t.request('/setup/status', { peer: '127.0.0.7', cookie }),
      logout: await t.request('/auth/logout', { method: 'POST' }),
      preflight: await t.request('/auth/verify', {
        method: 'OPTIONS',
        headers: { origin: 'http://127.0.0.1:8001', 'access-control-request-method': 'POST' },
      }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBeLessThan(300);
      expect(res.headers.get('cache-control'), name).toBe('no-store');
    }
  });

  it('never logs a token: not the configured one, not a temporary or regenerated one, not a ticket', async () => {
    const t = await createTestApp({ policy: { mode: 'production', trustedProxies: ['127.0.0.1'] } });
    const secrets = [t.token];
    let cookie = await t.login();
    expect((await t.request('/auth/update', { cookie, json: { new_token: KNOWN_TOKEN } })).status).toBe(200);
    secrets.push(KNOWN_TOKEN);

    // A full session with the configured token.
    cookie = await t.login(KNOWN_TOKEN);
    await t.request('/auth/check', { cookie });
    await t.request('/auth/check', { cookie: KNOWN_TOKEN });
    await t.request('/setup/status', { cookie });
    await t.request('/setup/complete', { method: 'POST', cookie });
    await t.request('/setup/reset', { method: 'POST', cookie });
    const ticket = (await json(await t.request('/ws-token', { cookie }))).token as string;
    secrets.push(ticket);
    await t.request('/auth/update', { cookie, json: { new_token: `${KNOWN_TOKEN}x y` } });
    await t.request('/auth/update', { cookie, json: { new_token: KNOWN_TOKEN } });
    await t.request('/nope', { cookie });
    await t.request('/auth/regenerate', { method: 'POST', cookie, headers: { origin: 'http://localhost:6666' } });
    await t.request('/auth/verify', {
      method: 'POST',
      body: `{"token": "${KNOWN_TOKEN}"`,
      headers: { 'content-type': 'application/json' },
    });
    await t.request('/auth/verify', {
      method: 'POST',
      body: JSON.stringify({ token: KNOWN_TOKEN }),
      headers: { 'content-type': 'text/plain' },
    });
    await t.login(KNOWN_TOKEN, { peer: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' } });
    await t.request('/auth/logout', { method: 'POST', cookie });

    // Near misses and a ban, through the cookie and through verify.
    for (let i = 0; i < 3; i++) await t.request('/auth/check', { cookie: `${KNOWN_TOKEN}${i}`, peer: '127.0.0.9' });
    for (let i = 0; i < 3; i++) await t.verify(`${KNOWN_TOKEN.slice(0, -1)}${i}`, { peer: '127.0.0.9' });
    await t.verify(KNOWN_TOKEN, { peer: '127.0.0.9' });

    // Rotation by regenerate.
    const fresh = await t.verify(KNOWN_TOKEN);
    const regenerated = await json(await t.request('/auth/regenerate', { method: 'POST', cookie: sessionCookieValue(fresh) as string }));
    secrets.push(regenerated.token as string);
    await t.login(regenerated.token as string);

    const logged = t.logger.text();
    expect(t.logger.calls.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(9);
      expect(logged).not.toContain(secret);
      expect(logged).not.toContain(encodeURIComponent(secret));
      expect(logged).not.toContain(JSON.stringify(secret).slice(1, -1));
    }
    // Not in part either: no 8-character run of the configured token appears.
    for (let i = 0; i + 8 <= KNOWN_TOKEN.length; i++) expect(logged).not.toContain(KNOWN_TOKEN.slice(i, i + 8));
  });

  it('logs one debug line per request with method, path (no query), status and timing', async () => {
    const t = await createTestApp();
    await t.request('/health?token=secret-ticket');
    const lines = t.logger.calls.filter((call) => call.message === 'request');
    expect(lines).toEqual([
      { level: 'debug', message: 'request', fields: { method: 'GET', path: '/api/webui/health', status: 200, ms: 0, ip: '127.0.0.5' } },
    ]);
    expect(t.logger.text()).not.toContain('secret-ticket');
  });

  it('logs the status of a refusal the guards answer, not of a response that was never made', async () => {
    const t = await createTestApp();
    await t.request('/setup/complete', { method: 'POST', json: {} });
    const lines = t.logger.calls.filter((call) => call.message === 'request');
    expect(lines).toEqual([
      {
        level: 'debug',
        message: 'request',
        fields: expect.objectContaining({ method: 'POST', path: '/api/webui/setup/complete', status: 401 }),
      },
    ]);
  });

  it('does not even assemble the request line when the logger says debug is off', async () => {
    const t = await createTestApp({ logger: new RecordingLogger(false) });
    expect((await t.request('/health')).status).toBe(200);
    expect(t.logger.calls.filter((call) => call.message === 'request')).toEqual([]);
  });

  it('turns an unexpected error in a mounted group into a logged 500 with an error body (docs/decisions/0001-error-bodies.md)', async () => {
    const failing = new Hono<WebuiEnv>()
      .get('/boom', () => {
        throw new Error('disk on fire');
      })
      .get('/teapot', () => {
        throw new HTTPException(418, { message: 'short and stout' });
      });
    const t = await createTestApp({ features: [extensionFeature('routes', { groups: [new RouteGroup('/api/webui/system', failing)] })] });
    const cookie = await t.login();
    const res = await t.request('/system/boom', { cookie });
    const body = await expectErrorBody(res, 500, 'internal_error');
    expect(body.detail).not.toContain('disk on fire');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(t.logger.at('error')).toEqual([
      {
        level: 'error',
        message: 'request failed',
        fields: { err: { message: 'disk on fire', name: 'Error' }, path: '/api/webui/system/boom' },
      },
    ]);
    await expectErrorBody(await t.request('/system/teapot', { cookie }), 418, 'http_error');
    expect((await t.request('/health')).status).toBe(200);
  });
});

describe('the pipeline, in the order createWebuiApp writes it', () => {
  const big = 'x'.repeat(MAX_BODY_BYTES + 1);

  it('answers with the first step that refuses: edge, Host, CSRF, body limit, credentials, scope', async () => {
    const t = await createTestApp({ policy: { allowedIps: ['127.0.0.0/8'] } });
    const foreign = { origin: 'http://localhost:6666', 'content-type': 'text/plain' };
    await expectErrorBody(
      await t.request('/setup/reset', { method: 'POST', body: big, peer: '198.51.100.1', host: 'evil.example', headers: foreign }),
      403,
      'ip_not_allowed',
    );
    await expectErrorBody(
      await t.request('/setup/reset', { method: 'POST', body: big, host: 'evil.example', headers: foreign }),
      403,
      'host_not_allowed',
    );
    await expectErrorBody(await t.request('/setup/reset', { method: 'POST', body: big, headers: foreign }), 403, 'origin_not_allowed');
    await expectErrorBody(await t.request('/setup/reset', { method: 'POST', body: big, bearer: 'wrong' }), 413, 'payload_too_large');
    await expectErrorBody(await t.request('/setup/reset', { method: 'POST', bearer: 'wrong' }), 401, 'invalid_credentials');
    await expectErrorBody(
      await t.request('/setup/reset', { method: 'POST', bearer: await t.createKey('reader', 'read') }),
      403,
      'insufficient_scope',
    );
    expect(await t.harness.setup.isFirstSetup()).toBe(true);
  });

  it('gives CORS headers to an allowed origin whichever later step refuses it', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: ['http://localhost:5173'] } });
    const origin = { origin: 'http://localhost:5173' };
    for (const res of [
      await t.request('/setup/status', { headers: origin }),
      await t.request('/setup/reset', { method: 'POST', body: big, headers: { ...origin, 'content-type': 'text/plain' } }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});
