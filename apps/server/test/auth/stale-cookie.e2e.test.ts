import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const sessionCookie = (token: string) => `bot_session=${encodeURIComponent(token)}`;

/**
 * After a token change, open dashboard tabs keep sending the old token as their cookie: a stale
 * session, answered 401 as before but never counted toward a ban. A value that was never valid still
 * counts (docs/decisions/0004-guessing-through-the-cookie.md).
 */
describe('stale session cookies after a token change', () => {
  let server: ServerProcess;
  /** The operator's client: logs in from 127.0.0.72 with whatever token is current and reads the bans. */
  let operator: HttpClient;
  let current: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });

  async function loginOperator(): Promise<void> {
    const login = await operator.post('/auth/verify', { body: { token: current } });
    expect(login.json, login.text).toMatchObject({ valid: true });
  }

  async function listedKeys(): Promise<string[]> {
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return (response.json?.['bans'] as Array<{ key: string }>).map((entry) => entry.key);
  }

  /** What an open tab does with its cookie: polls the setup state and the login state, asks for a ticket, tries a change. */
  async function staleTabRequests(tab: HttpClient, cookie: string, count: number): Promise<HttpResponse[]> {
    const answers: HttpResponse[] = [];
    for (let n = 0; n < count; n++) {
      switch (n % 4) {
        case 0: {
          const answer = await tab.get('/setup/status', { cookie });
          expectErrorBody(answer, 401, 'invalid_session');
          answers.push(answer);
          break;
        }
        case 1: {
          const answer = await tab.get('/auth/check', { cookie });
          expect(answer.status, answer.text).toBe(200);
          expect(answer.json).toEqual({ authenticated: false });
          answers.push(answer);
          break;
        }
        case 2: {
          const answer = await tab.get('/ws-token', { cookie });
          expect(answer.status, answer.text).toBe(200);
          expect(answer.json).toMatchObject({ success: false });
          answers.push(answer);
          break;
        }
        default: {
          const answer = await tab.post('/setup/complete', { cookie });
          expectErrorBody(answer, 401, 'invalid_session');
          answers.push(answer);
        }
      }
    }
    return answers;
  }

  beforeAll(async () => {
    server = await startServer();
    current = readWebuiFile(server.dataDir).access_token;
    operator = from('127.0.0.72');
  });

  it(
    'log in, rotate the token with /auth/update; 20 requests with the old cookie from that address are never 429, the address is not ' +
      'listed, and the new token logs in there',
    async () => {
      const tab = from('127.0.0.71');
      const login = await tab.post('/auth/verify', { body: { token: current } });
      expect(login.json).toMatchObject({ valid: true });
      const oldCookie = `bot_session=${tab.cookie('bot_session') as string}`;
      expect(oldCookie).toBe(sessionCookie(current));

      const update = await tab.post('/auth/update', { body: { new_token: STRONG_TOKEN } });
      expect(update.status, update.text).toBe(200);
      expect(update.json).toMatchObject({ success: true });
      current = STRONG_TOKEN;

      const answers = await staleTabRequests(tab, oldCookie, 20);
      expect(answers.filter((answer) => answer.status === 429)).toEqual([]);

      await loginOperator();
      // Not even one failure on record: a stale session is not a guess, not even the first time.
      expect(await listedKeys()).toEqual([]);

      const relogin = await tab.post('/auth/verify', { body: { token: current }, cookie: oldCookie });
      expect(relogin.status, relogin.text).toBe(200);
      expect(relogin.json).toMatchObject({ valid: true });
    },
  );

  it('tabs left over from five rotations (/auth/regenerate), each polling with its own old token, do not ban their address', async () => {
    const retired: string[] = [current];
    for (let n = 0; n < 5; n++) {
      await loginOperator();
      const regenerate = await operator.post('/auth/regenerate');
      expect(regenerate.status, regenerate.text).toBe(200);
      current = String(regenerate.json?.['token']);
      if (n < 4) retired.push(current);
    }
    // Five distinct values: counted as guesses they would ban the address on the fifth.
    expect(new Set(retired).size).toBe(5);

    const tabs = from('127.0.0.74');
    for (let round = 0; round < 2; round++) {
      for (const token of retired)
        expect((await staleTabRequests(tabs, sessionCookie(token), 2)).map((answer) => answer.status)).not.toContain(429);
    }
    await loginOperator();
    expect(await listedKeys()).toEqual([]);
    // All five old tokens in one Cookie header: more than one bot_session is refused unread, as one guess (issue 31).
    expectErrorBody(await tabs.get('/setup/status', { cookie: retired.map(sessionCookie).join('; ') }), 400, 'duplicate_credentials');
    expect(await listedKeys()).toEqual(['127.0.0.74']);
    const login = await tabs.post('/auth/verify', { body: { token: current }, cookie: null });
    expect(login.status, login.text).toBe(200);
    expect(login.json).toMatchObject({ valid: true });
  });

  it('control: five different never-valid cookie values from 127.0.0.73 still ban it (docs/decisions/0004-guessing-through-the-cookie.md)', async () => {
    const guesser = from('127.0.0.73');
    for (let n = 1; n <= 4; n++)
      expectErrorBody(await guesser.get('/setup/status', { cookie: sessionCookie(`never-valid-${n}`) }), 401, 'invalid_session');
    expectErrorBody(await guesser.get('/setup/status', { cookie: sessionCookie('never-valid-5') }), 429, 'too_many_attempts');
    expectErrorBody(await guesser.post('/auth/verify', { body: { token: current }, cookie: null }), 429, 'too_many_attempts');

    await loginOperator();
    expect(await listedKeys()).toEqual(['127.0.0.73']);
  });
});
