import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

/** Each client connects from its own loopback source address; the server binds 127.0.0.1 and ::1 by default. */
describe('per-IP bans with real source addresses', () => {
  let server: ServerProcess;
  let token: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const wrong = (client: HttpClient, n: number) => client.post('/auth/verify', { body: { token: `wrong-guess-${n}` } });

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
  });

  function expectBan(response: HttpResponse): void {
    expectErrorBody(response, 429, 'too_many_attempts');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(540);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(response.json?.['retry_after']).toBe(retryAfter);
    expect(response.setCookie).toEqual([]);
  }

  it('five wrong verifies from 127.0.0.2: reminders on the 3rd and 4th, 429 with Retry-After on the 5th', async () => {
    const attacker = from('127.0.0.2');
    const answers: HttpResponse[] = [];
    for (let n = 1; n <= 5; n++) answers.push(await wrong(attacker, n));
    const [first, second, third, fourth, fifth] = answers as [HttpResponse, HttpResponse, HttpResponse, HttpResponse, HttpResponse];

    for (const answer of [first, second]) {
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ valid: false, message: expect.any(String) });
      expect(answer.json).not.toHaveProperty('remaining_attempts');
    }
    expect(third.status).toBe(200);
    expect(third.json).toMatchObject({ valid: false, remaining_attempts: 2, message: expect.stringContaining('2') });
    expect(fourth.status).toBe(200);
    expect(fourth.json).toMatchObject({ valid: false, remaining_attempts: 1, message: expect.stringContaining('1') });
    expectBan(fifth);
  });

  it('while banned even the right token from 127.0.0.2 answers 429 and sets no cookie', async () => {
    const response = await from('127.0.0.2').post('/auth/verify', { body: { token } });
    expectBan(response);
    // The cookie is not even compared while banned: it cannot serve as an oracle either.
    expectBan(await from('127.0.0.2').get('/setup/status', { cookie: `bot_session=${token}` }));
  });

  it('the right token from 127.0.0.3 is not affected by the ban of 127.0.0.2', async () => {
    const response = await from('127.0.0.3').post('/auth/verify', { body: { token } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ valid: true });
    expect(response.setCookie.some((line) => line.startsWith('bot_session='))).toBe(true);
  });

  it('a success clears the count: 4 failures, a login, 4 more failures from 127.0.0.4 are not banned', async () => {
    const client = from('127.0.0.4');
    for (let n = 1; n <= 4; n++) expect((await wrong(client, n)).status).toBe(200);
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const after: HttpResponse[] = [];
    for (let n = 5; n <= 8; n++) after.push(await wrong(client, n));
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(after[3]?.json).toMatchObject({ valid: false, remaining_attempts: 1 });
  });

  it('guessing through the cookie counts too: 5 distinct wrong cookies from 127.0.0.5 ban it (docs/decisions/0004-guessing-through-the-cookie.md)', async () => {
    const client = from('127.0.0.5');
    for (let n = 1; n <= 4; n++) expectErrorBody(await client.get('/setup/status', { cookie: `bot_session=cookie-guess-${n}` }), 401);
    expectBan(await client.get('/setup/status', { cookie: 'bot_session=cookie-guess-5' }));
    expectBan(await client.post('/auth/verify', { body: { token } }));
  });

  it('a stale cookie polled again and again is counted once and does not ban its owner', async () => {
    const client = from('127.0.0.6');
    for (let n = 0; n < 8; n++) expectErrorBody(await client.get('/setup/status', { cookie: 'bot_session=stale-old-token' }), 401);
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });
});
