import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, parseSetCookie } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { HEX64, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

/** What an operator's script does: read access_token from data/webui.json and send it as the cookie, no /auth/verify. */
function scriptCookie(server: ServerProcess): string {
  return `bot_session=${readWebuiFile(server.dataDir).access_token}`;
}

const LOGIN_REQUIRED_401: Array<[method: 'GET' | 'POST', path: string]> = [
  ['GET', '/setup/status'],
  ['POST', '/setup/complete'],
  ['POST', '/setup/reset'],
  ['POST', '/auth/update'],
  ['POST', '/auth/regenerate'],
];

describe('a script that sends the token from webui.json as its cookie', () => {
  let server: ServerProcess;
  let script: HttpClient;

  beforeAll(async () => {
    server = await startServer();
    script = new HttpClient(server.baseUrl);
  });

  it('works on every login-required endpoint without ever calling /auth/verify', async () => {
    const status = await script.get('/setup/status', { cookie: scriptCookie(server) });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ is_first_setup: true, token_source: 'temporary', requires_custom_token: true });

    const complete = await script.post('/setup/complete', { cookie: scriptCookie(server) });
    expect(complete.status).toBe(200);
    expect(complete.json).toMatchObject({ success: true, is_first_setup: false });
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(true);

    const reset = await script.post('/setup/reset', { cookie: scriptCookie(server) });
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({ success: true, is_first_setup: true });
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(false);

    const ticket = await script.get('/ws-token', { cookie: scriptCookie(server) });
    expect(ticket.status).toBe(200);
    expect(ticket.json).toMatchObject({ success: true, expires_in: 60, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });

    const update = await script.post('/auth/update', { cookie: scriptCookie(server), body: { new_token: STRONG_TOKEN } });
    expect(update.status).toBe(200);
    expect(update.json).toMatchObject({ success: true });
    // The script reads the file again and carries on with what it finds there now.
    expect(scriptCookie(server)).toBe(`bot_session=${STRONG_TOKEN}`);
    const afterUpdate = await script.get('/setup/status', { cookie: scriptCookie(server) });
    expect(afterUpdate.json).toMatchObject({ token_source: 'configured', requires_custom_token: false });

    const regenerate = await script.post('/auth/regenerate', { cookie: scriptCookie(server) });
    expect(regenerate.status).toBe(200);
    expect(regenerate.json).toMatchObject({ success: true, token: expect.stringMatching(HEX64) });
    expect(scriptCookie(server)).toBe(`bot_session=${String(regenerate.json?.['token'])}`);
    expect((await script.get('/setup/status', { cookie: scriptCookie(server) })).status).toBe(200);
  });
});

describe('without a session', () => {
  let server: ServerProcess;
  let anonymous: HttpClient;

  beforeAll(async () => {
    server = await startServer();
    anonymous = new HttpClient(server.baseUrl);
  });

  it.each(LOGIN_REQUIRED_401)('%s %s answers 401 with {detail, code}', async (method, path) => {
    const response = await anonymous.request(
      method,
      path,
      method === 'POST' && path === '/auth/update' ? { body: { new_token: STRONG_TOKEN } } : {},
    );
    expectErrorBody(response, 401);
  });

  it('changes nothing in webui.json', () => {
    const file = readWebuiFile(server.dataDir);
    expect(file.token_source).toBe('temporary');
    expect(file.first_setup_completed).toBe(false);
  });

  it('GET /ws-token answers 200 with success false, not 401', async () => {
    const response = await anonymous.get('/ws-token');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ success: false, message: expect.any(String) });
    expect(response.json).not.toHaveProperty('token');
  });

  it('GET /auth/check answers authenticated false, not 401', async () => {
    const response = await anonymous.get('/auth/check');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ authenticated: false });
  });

  it('an unknown path under /api/webui answers 401 before login and 404 after', async () => {
    for (const path of ['/no-such-endpoint', '/config/bot', '/person/list']) {
      expectErrorBody(await anonymous.get(path), 401);
    }
    const cookie = scriptCookie(server);
    for (const path of ['/no-such-endpoint', '/config/bot', '/person/list']) {
      expectErrorBody(await anonymous.get(path, { cookie }), 404);
    }
  });
});

describe('malformed requests', () => {
  let server: ServerProcess;
  let client: HttpClient;

  beforeAll(async () => {
    server = await startServer();
    client = new HttpClient(server.baseUrl);
  });

  const cases: Array<[name: string, options: { rawBody?: string; body?: unknown; headers?: Record<string, string> }]> = [
    ['bad JSON', { rawBody: '{"token": ', headers: { 'content-type': 'application/json' } }],
    ['a JSON array', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }],
    ['a missing field', { body: {} }],
    ['a field of the wrong type', { body: { token: 5, new_token: 5 } }],
    ['a wrong content type', { rawBody: 'token=abc', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
    ['no content type', { rawBody: '{"token":"abc"}' }],
    ['an empty body', { rawBody: '', headers: { 'content-type': 'application/json' } }],
  ];

  it.each(cases)('POST /auth/verify with %s answers 4xx with {detail, code}, never 500', async (_name, options) => {
    const response = await client.post('/auth/verify', { ...options, cookie: null });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expectErrorBody(response, response.status);
  });

  it.each(cases)('POST /auth/update (logged in) with %s answers 4xx with {detail, code}, never 500', async (_name, options) => {
    const response = await client.post('/auth/update', { ...options, cookie: scriptCookie(server) });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expectErrorBody(response, response.status);
    expect(readWebuiFile(server.dataDir).token_source).toBe('temporary');
  });

  it('classifies them: bad JSON 400, wrong shape 422, wrong content type 415', async () => {
    expectErrorBody(
      await client.post('/auth/verify', { rawBody: '{', headers: { 'content-type': 'application/json' }, cookie: null }),
      400,
    );
    expectErrorBody(await client.post('/auth/verify', { body: {}, cookie: null }), 422);
    expectErrorBody(await client.post('/auth/verify', { rawBody: '{}', headers: { 'content-type': 'text/plain' }, cookie: null }), 415);
  });

  it('a weak token at /auth/update is a 400 that names every broken rule and keeps the old token', async () => {
    const before = readWebuiFile(server.dataDir).access_token;
    const response = await client.post('/auth/update', { body: { new_token: 'short' }, cookie: scriptCookie(server) });
    expectErrorBody(response, 400, 'weak_token');
    expect(response.json).toMatchObject({ success: false, message: expect.any(String) });
    expect(response.json?.['violations']).toEqual(expect.arrayContaining([expect.any(String)]));
    expect((response.json?.['violations'] as unknown[]).length).toBeGreaterThanOrEqual(3);
    expect(readWebuiFile(server.dataDir).access_token).toBe(before);
  });

  it('an odd Host (upper case with a port) is served or refused with {detail, code}, never an empty body', async () => {
    // Node's adapter refuses it before the app runs; Bun and Deno pass it on as a loopback name.
    const response = await client.get('/health', { headers: { host: 'LOCALHOST:1' }, cookie: null });
    if (response.status === 200) expect(response.json).toMatchObject({ status: 'healthy' });
    else expectErrorBody(response, 400, 'bad_request');
  });

  it('a body over 16 KiB answers 413 with {detail, code}', async () => {
    const response = await client.post('/auth/verify', { body: { token: 'x'.repeat(17 * 1024) }, cookie: null });
    expectErrorBody(response, 413);
  });
});

describe('POST /auth/logout', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer();
  });

  it('answers {success: true, message: 已成功登出} and clears the cookie, logged in or not', async () => {
    const browser = new HttpClient(server.baseUrl);
    const token = readWebuiFile(server.dataDir).access_token;
    expect((await browser.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    expect((await browser.get('/setup/status')).status).toBe(200);

    const response = await browser.post('/auth/logout');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ success: true, message: '已成功登出' });
    const cleared = response.setCookie.map(parseSetCookie).find((cookie) => cookie.name === 'bot_session');
    expect(cleared?.value).toBe('');
    expect(cleared?.attributes.get('max-age')).toBe('0');
    expect(cleared?.attributes.get('path')).toBe('/');
    expect(cleared?.attributes.get('httponly')).toBe(true);
    expect(browser.cookie('bot_session')).toBeUndefined();
    expectErrorBody(await browser.get('/setup/status'), 401);

    const again = await browser.post('/auth/logout');
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ success: true, message: '已成功登出' });
  });
});
