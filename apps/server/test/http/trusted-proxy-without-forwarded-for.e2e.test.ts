import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { startNginx, stopAllNginx, type NginxProxy } from '../harness/proxies/nginx.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

// nginx first: its temp dir is removed with the servers'.
afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
});

const WARN = 40;
const NO_FORWARDED_FOR = /trusted proxy without a usable X-Forwarded-For/;
const BANNED = 'client banned after repeated failed verifications';

/**
 * One server trusting 127.0.0.1, with two real nginx in front of it on that address: one that forgets
 * X-Forwarded-For (every request looks like the proxy's own) and one configured as the README says.
 * Issue 31, item 3: what the forgetful proxy forwards is counted against the proxy's own address, so it
 * is no way around the count; the operator is warned to fix the proxy.
 */
describe('trusted_proxies = ["127.0.0.1"] behind a real nginx', () => {
  let server: ServerProcess;
  let token: string;
  /** nginx without proxy_set_header X-Forwarded-For. */
  let forgetful: NginxProxy;
  /** nginx sending X-Forwarded-For $proxy_add_x_forwarded_for. */
  let forwarding: NginxProxy;
  /** Logged in straight to the server from an address that is not a proxy. */
  let operator: HttpClient;

  const wrong = (client: HttpClient, n: number) => client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, cookie: null });
  const proxyNotices = () => server.logs().filter((line) => NO_FORWARDED_FOR.test(String(line.msg)));

  async function bansSeenBy(client: HttpClient): Promise<Array<{ key: string; banned_until: string | null }>> {
    const response = await client.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return response.json?.['bans'] as Array<{ key: string; banned_until: string | null }>;
  }

  beforeAll(async () => {
    server = await startServer({ config: ['[webui]', 'trusted_proxies = ["127.0.0.1"]', ''].join('\n') });
    token = readWebuiFile(server.dataDir).access_token;
    forgetful = await startNginx(server.port, { forwardedFor: false });
    forwarding = await startNginx(server.port);
    operator = new HttpClient(server.baseUrl, { localAddress: '127.0.0.50' });
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });

  describe('a proxy that sends no X-Forwarded-For', () => {
    it("bad verifies through it from five clients count against the proxy's address: the fifth bans it", async () => {
      const through = (n: number) => new HttpClient(forgetful.httpUrl, { localAddress: `127.0.0.${31 + (n % 5)}` });
      for (let n = 1; n <= 4; n++) {
        const answer = await wrong(through(n), n);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json).toMatchObject({ valid: false });
      }
      expectErrorBody(await wrong(through(5), 5), 429, 'too_many_attempts');
      // Everyone behind it is banned with it, the right token included: why the operator must fix the proxy.
      expectErrorBody(await through(6).post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');
      expect((await bansSeenBy(operator)).map((entry) => entry.key)).toEqual(['127.0.0.1']);
      await server.waitForLog((line) => line.msg === BANNED && line['ip'] === '127.0.0.1');
    });

    it('the log warns once, naming the proxy and how to fix it', async () => {
      await eventually(() => proxyNotices().length >= 1, 5_000, 'the warning about the proxy');
      const notices = proxyNotices();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({
        level: WARN,
        ip: '127.0.0.1',
        msg: expect.stringMatching(/is counted against the proxy's own address.*make the proxy send X-Forwarded-For/),
      });
    });

    it("the operator lifts the proxy's ban", async () => {
      const lifted = await operator.request('DELETE', '/security/bans/127.0.0.1');
      expect(lifted.json).toMatchObject({ success: true, lifted: [{ key: '127.0.0.1' }] });
    });
  });

  describe('a proxy that sends X-Forwarded-For', () => {
    it('bans the real client 127.0.0.61 after 5, while 127.0.0.62 behind the same proxy still logs in', async () => {
      const guesser = new HttpClient(forwarding.httpUrl, { localAddress: '127.0.0.61' });
      for (let n = 1; n <= 4; n++) {
        const answer = await wrong(guesser, n);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json).toMatchObject({ valid: false });
      }
      expectErrorBody(await wrong(guesser, 5), 429, 'too_many_attempts');
      expectErrorBody(await guesser.post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');

      const neighbour = new HttpClient(forwarding.httpUrl, { localAddress: '127.0.0.62' });
      const login = await neighbour.post('/auth/verify', { body: { token } });
      expect(login.status, login.text).toBe(200);
      expect(login.json).toMatchObject({ valid: true });

      expect((await bansSeenBy(neighbour)).map((entry) => entry.key)).toEqual(['127.0.0.61']);
      await server.waitForLog((line) => line.msg === BANNED && line['ip'] === '127.0.0.61');
      // Forwarded requests never needed the warning.
      expect(proxyNotices()).toHaveLength(1);
    });
  });
});
