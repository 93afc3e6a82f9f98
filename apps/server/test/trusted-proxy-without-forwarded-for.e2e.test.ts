import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './harness/error-body.js';
import { HttpClient, type HttpResponse } from './harness/http-client.js';
import { startNginx, stopAllNginx, type NginxProxy } from './harness/nginx.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from './harness/server-process.js';
import { readWebuiFile } from './harness/webui-file.js';

// nginx first: its temp dir is removed with the servers'.
afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
});

const WARN = 40;
const UNATTRIBUTED = /trusted proxy without a usable X-Forwarded-For/;
const BANNED = 'client banned after repeated failed verifications';

/**
 * One server trusting 127.0.0.1, with two real nginx in front of it on that address: one that forgets
 * X-Forwarded-For (every request looks like the proxy's own) and one configured as the README says.
 */
describe('trusted_proxies = ["127.0.0.1"] behind a real nginx', () => {
  let server: ServerProcess;
  let token: string;
  /** nginx without proxy_set_header X-Forwarded-For. */
  let forgetful: NginxProxy;
  /** nginx sending X-Forwarded-For $proxy_add_x_forwarded_for. */
  let forwarding: NginxProxy;

  const wrong = (client: HttpClient, n: number) => client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, cookie: null });
  const unattributedNotices = () => server.logs().filter((line) => UNATTRIBUTED.test(String(line.msg)));

  async function bansSeenBy(client: HttpClient): Promise<Array<{ key: string }>> {
    const response = await client.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return response.json?.['bans'] as Array<{ key: string }>;
  }

  beforeAll(async () => {
    server = await startServer({ config: ['[webui]', 'trusted_proxies = ["127.0.0.1"]', ''].join('\n') });
    token = readWebuiFile(server.dataDir).access_token;
    forgetful = await startNginx(server.port, { forwardedFor: false });
    forwarding = await startNginx(server.port);
  });

  describe('a proxy that sends no X-Forwarded-For', () => {
    it('fifty bad verifies through it, from five clients, are answered but none with 429', async () => {
      const answers: HttpResponse[] = [];
      for (let n = 1; n <= 50; n++) answers.push(await wrong(new HttpClient(forgetful.httpUrl, { localAddress: `127.0.0.${31 + (n % 5)}` }), n));
      for (const answer of answers) {
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json).toMatchObject({ valid: false });
        expect(answer.json).not.toHaveProperty('remaining_attempts');
      }
    });

    it('then the right token through the same proxy logs in, and GET /security/bans through it lists nobody', async () => {
      const operator = new HttpClient(forgetful.httpUrl, { localAddress: '127.0.0.31' });
      const login = await operator.post('/auth/verify', { body: { token } });
      expect(login.status, login.text).toBe(200);
      expect(login.json).toMatchObject({ valid: true });
      expect(await bansSeenBy(operator)).toEqual([]);
      // Nobody banned means nobody: the proxy's own address logs in straight to the server too.
      expect((await new HttpClient(server.baseUrl, { localAddress: '127.0.0.1' }).post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    });

    it('the log says so once: one warn line for the fifty, naming the proxy, and no ban line', async () => {
      await eventually(() => unattributedNotices().length >= 1, 5_000, 'the not-counted notice');
      const notices = unattributedNotices();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ level: WARN, ip: '127.0.0.1', counted: false, msg: expect.stringMatching(/not counted/) });
      expect(server.logs().filter((line) => line.msg === BANNED)).toEqual([]);
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
      // Attributed requests never needed the notice.
      expect(unattributedNotices()).toHaveLength(1);
    });
  });
});
