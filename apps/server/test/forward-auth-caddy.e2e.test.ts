import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './harness/error-body.js';
import { HttpClient, type HttpResponse } from './harness/http-client.js';
import { startIdentityEchoBackend, type IdentityEchoBackend } from './harness/identity-echo-backend.js';
import { startCaddy, stopAllCaddy } from './harness/caddy.js';
import { readmeBlock, substituted } from './harness/readme-recipe.js';
import { cleanupServers, defaultLauncher, freePort, startServer, type ServerProcess } from './harness/server-process.js';
import { readWebuiFile } from './harness/webui-file.js';

// Caddy first: its temp dir is removed with the servers'.
afterAll(async () => {
  await stopAllCaddy();
  await cleanupServers();
});

const RECIPE = 'Keep your own proxy: forward-auth with nginx or Caddy';

/**
 * Issue 33, item 5: the README's Caddyfile, run by a real Caddy (Debian's caddy, forward_auth) in front of a backend
 * that echoes who Caddy said was calling; the server's config is the README's too. Node only: it drives Caddy.
 */
describe.runIf(defaultLauncher.name === 'node')("forward-auth behind the README's Caddyfile", () => {
  let server: ServerProcess;
  let backend: IdentityEchoBackend;
  let proxyUrl: string;
  let token: string;
  /** A caller of the proxied app at its own address (Caddy names it in X-Forwarded-For, the server counts it). */
  const app = (address: string) => new HttpClient(proxyUrl, { localAddress: address, prefix: '' });
  /** The same caller on the server's own API, through the same Caddy. */
  const api = (address: string) => new HttpClient(proxyUrl, { localAddress: address });

  beforeAll(async () => {
    server = await startServer({ config: readmeBlock(RECIPE, 'toml') });
    token = readWebuiFile(server.dataDir).access_token;
    backend = await startIdentityEchoBackend();
    const port = await freePort();
    const caddyfile = substituted(readmeBlock(RECIPE, 'caddyfile'), [
      ['bot.example.com {', `http://127.0.0.1:${port} {`, 1],
      ['127.0.0.1:8001', `127.0.0.1:${server.port}`, 2],
      ['127.0.0.1:8002', `127.0.0.1:${backend.port}`, 1],
    ]);
    proxyUrl = `http://127.0.0.1:${port}`;
    await startCaddy(caddyfile, [port]);
  });

  afterAll(async () => {
    await backend?.stop();
  });

  /** The backend answered, and Caddy told it who was calling. */
  function expectLetThrough(res: HttpResponse, principal: string, scope: string): void {
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ principal, scope });
  }

  it('lets a cookie logged in through Caddy pass as the session, with a forged identity header replaced', async () => {
    const browser = api('127.0.0.61');
    expect((await browser.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const cookie = `bot_session=${browser.cookie('bot_session')}`;
    const page = app('127.0.0.61');
    expectLetThrough(await page.get('/dashboard', { cookie, headers: { 'x-webui-principal': 'key:forged' } }), 'session', 'admin');
    // A state change from the page's own origin passes; from another site it never reaches the backend.
    const origin = { origin: proxyUrl };
    expectLetThrough(await page.post('/api/config', { cookie, body: {}, headers: origin }), 'session', 'admin');
    const before = backend.received.length;
    const foreign = { cookie, body: {}, headers: { origin: 'http://evil.example' } };
    expectErrorBody(await page.post('/api/config', foreign), 403, 'origin_not_allowed');
    expect(backend.received).toHaveLength(before);
  });

  it('lets an admin key pass for a state change, a read key only for reading (the server’s own 403)', async () => {
    const operator = api('127.0.0.62');
    await operator.post('/auth/verify', { body: { token } });
    const admin = String((await operator.post('/keys', { body: { name: 'deploy', scope: 'admin' } })).json?.['key']);
    const reader = String((await operator.post('/keys', { body: { name: 'grafana', scope: 'read' } })).json?.['key']);
    const asAdmin = { cookie: null, headers: { authorization: `Bearer ${admin}` } };
    const asReader = { cookie: null, headers: { authorization: `Bearer ${reader}` } };
    const script = app('127.0.0.63');
    expectLetThrough(await script.request('DELETE', '/api/plugins/x', asAdmin), 'key:deploy', 'admin');
    expectLetThrough(await script.get('/api/stats', asReader), 'key:grafana', 'read');
    const before = backend.received.length;
    const refused = await script.post('/api/config', { ...asReader, body: {} });
    expectErrorBody(refused, 403, 'insufficient_scope');
    expect(refused.json?.['required']).toBe('write');
    expectErrorBody(await script.request('PUT', '/api/config', asReader), 403, 'insufficient_scope');
    expect(backend.received).toHaveLength(before);
  });

  it("refuses a request without a credential, or with a wrong one, with the server's 401, and the backend never sees it", async () => {
    const before = backend.received.length;
    expectErrorBody(await app('127.0.0.64').get('/dashboard', { cookie: null }), 401, 'not_authenticated');
    expectErrorBody(await app('127.0.0.64').get('/dashboard', { cookie: 'bot_session=wrong' }), 401, 'invalid_session');
    expect(backend.received).toHaveLength(before);
  });

  it('counts a wrong key through Caddy against the caller: the fifth bans it (429 with Retry-After), others still pass', async () => {
    const guesser = app('127.0.0.65');
    const guess = (n: number) => guesser.get('/api/stats', { cookie: null, headers: { authorization: `Bearer wk_guess_${n}` } });
    for (let n = 1; n <= 4; n++) expectErrorBody(await guess(n), 401, 'invalid_credentials');
    const banned = await guess(5);
    expectErrorBody(banned, 429, 'too_many_attempts');
    expect(banned.headers['retry-after']).toMatch(/^\d+$/);
    expect(banned.json?.['retry_after']).toBe(Number(banned.headers['retry-after']));
    // The right token is refused too while banned; the ban is the caller's, not Caddy's.
    expectErrorBody(await guesser.get('/api/stats', { cookie: null, headers: { authorization: `Bearer ${token}` } }), 429);
    expectLetThrough(
      await app('127.0.0.66').get('/api/stats', { cookie: null, headers: { authorization: `Bearer ${token}` } }),
      'session',
      'admin',
    );
    const bans = await api('127.0.0.66').get('/security/bans', { cookie: null, headers: { authorization: `Bearer ${token}` } });
    expect((bans.json?.['bans'] as Array<{ key: string; banned_until: string | null }>).filter((ban) => ban.banned_until)).toEqual([
      expect.objectContaining({ key: '127.0.0.65' }),
    ]);
  });
});
