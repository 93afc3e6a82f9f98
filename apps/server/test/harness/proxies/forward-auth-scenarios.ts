import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../error-body.js';
import { HttpClient, type HttpResponse } from '../clients/http-client.js';
import { startIdentityEchoBackend, type IdentityEchoBackend } from './identity-echo-backend.js';
import { readmeBlock } from '../readme-recipe.js';
import { cleanupServers, defaultLauncher, freePort, startServer, type ServerProcess } from '../processes/server-process.js';
import { readWebuiFile } from '../webui-file.js';

export const FORWARD_AUTH_RECIPE = 'Keep your own proxy: forward-auth with nginx or Caddy';

/** A proxy from the README's forward-auth recipe, and the codes its refusals reach the caller with. */
export interface ForwardAuthProxy {
  name: string;
  /** Starts the README's block for this proxy on `port`, in front of the server and the backend. */
  start(recipe: (lang: string) => string, ports: { proxy: number; server: number; backend: number }): Promise<void>;
  stopAll(): Promise<void>;
  /** The code of each refusal as the caller gets it: Caddy passes the server's answers, nginx maps them to its own. */
  codes: { foreignOrigin: string; readScope: string; wrongCookie: string; wrongKey: string };
  /** Whether the caller gets the server's own refusal bodies (with their extra fields, such as `required`). */
  passesServerBodies: boolean;
}

/**
 * Issue 33, item 5: the README's recipe for `proxy`, run by the real proxy in front of a backend that echoes who the proxy
 * said was calling; the server's config is the README's too. Node only: it drives the proxy.
 */
export function forwardAuthBehind(proxy: ForwardAuthProxy): void {
  // The proxy first: its temp dir is removed with the servers'.
  afterAll(async () => {
    await proxy.stopAll();
    await cleanupServers();
  });

  describe.runIf(defaultLauncher.name === 'node')(`forward-auth behind the README's ${proxy.name} recipe`, () => {
    let server: ServerProcess;
    let backend: IdentityEchoBackend;
    let proxyUrl: string;
    let token: string;
    /** A caller of the proxied app at its own address (the proxy names it in X-Forwarded-For, the server counts it). */
    const app = (address: string) => new HttpClient(proxyUrl, { localAddress: address, prefix: '' });
    /** The same caller on the server's own API, through the same proxy. */
    const api = (address: string) => new HttpClient(proxyUrl, { localAddress: address });

    beforeAll(async () => {
      server = await startServer({ config: readmeBlock(FORWARD_AUTH_RECIPE, 'toml') });
      token = readWebuiFile(server.dataDir).access_token;
      backend = await startIdentityEchoBackend();
      const port = await freePort();
      proxyUrl = `http://127.0.0.1:${port}`;
      await proxy.start((lang) => readmeBlock(FORWARD_AUTH_RECIPE, lang), { proxy: port, server: server.port, backend: backend.port });
    });

    afterAll(async () => {
      await backend?.stop();
    });

    /** The backend answered, and the proxy told it who was calling. */
    function expectLetThrough(res: HttpResponse, principal: string, scope: string): void {
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ principal, scope });
    }

    it(`lets a cookie logged in through ${proxy.name} pass as the session, with a forged identity header replaced`, async () => {
      const browser = api('127.0.0.61');
      expect((await browser.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
      const cookie = `bot_session=${browser.cookie('bot_session')}`;
      const page = app('127.0.0.61');
      expectLetThrough(await page.get('/dashboard', { cookie, headers: { 'x-webui-principal': 'key:forged' } }), 'session', 'admin');
      // A state change from the page's own origin passes; from another site it never reaches the backend.
      expectLetThrough(await page.post('/api/config', { cookie, body: {}, headers: { origin: proxyUrl } }), 'session', 'admin');
      const before = backend.received.length;
      const foreign = { cookie, body: {}, headers: { origin: 'http://evil.example' } };
      expectErrorBody(await page.post('/api/config', foreign), 403, proxy.codes.foreignOrigin);
      expect(backend.received).toHaveLength(before);
    });

    it('lets an admin key pass for a state change, a read key only for reading (403)', async () => {
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
      expectErrorBody(refused, 403, proxy.codes.readScope);
      if (proxy.passesServerBodies) expect(refused.json?.['required']).toBe('admin');
      expectErrorBody(await script.request('PUT', '/api/config', asReader), 403, proxy.codes.readScope);
      expect(backend.received).toHaveLength(before);
    });

    it('refuses a request without a credential, or with a wrong one, with 401, and the backend never sees it', async () => {
      const before = backend.received.length;
      expectErrorBody(await app('127.0.0.64').get('/dashboard', { cookie: null }), 401, 'not_authenticated');
      expectErrorBody(await app('127.0.0.64').get('/dashboard', { cookie: 'bot_session=wrong' }), 401, proxy.codes.wrongCookie);
      expect(backend.received).toHaveLength(before);
    });

    it(`counts a wrong key through ${proxy.name} against the caller: the fifth bans it (429 with Retry-After)`, async () => {
      const guesser = app('127.0.0.65');
      const guess = (n: number) => guesser.get('/api/stats', { cookie: null, headers: { authorization: `Bearer wk_guess_${n}` } });
      for (let n = 1; n <= 4; n++) expectErrorBody(await guess(n), 401, proxy.codes.wrongKey);
      const banned = await guess(5);
      expectErrorBody(banned, 429, 'too_many_attempts');
      expect(banned.headers['retry-after']).toMatch(/^\d+$/);
      expect(banned.json?.['retry_after']).toBe(Number(banned.headers['retry-after']));
      // The right token is refused too while banned; the ban is the caller's, not the proxy's.
      const asToken = { cookie: null, headers: { authorization: `Bearer ${token}` } };
      expectErrorBody(await guesser.get('/api/stats', asToken), 429);
      expectLetThrough(await app('127.0.0.66').get('/api/stats', asToken), 'session', 'admin');
      const bans = await api('127.0.0.66').get('/security/bans', asToken);
      expect((bans.json?.['bans'] as Array<{ key: string; banned_until: string | null }>).filter((ban) => ban.banned_until)).toEqual([
        expect.objectContaining({ key: '127.0.0.65' }),
      ]);
    });
  });
}
