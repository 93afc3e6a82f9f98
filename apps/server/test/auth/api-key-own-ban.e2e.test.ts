import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebui } from '../harness/processes/cli-process.js';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, defaultLauncher, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const GUESSER = '127.0.0.41';

/**
 * Issue 31, item 2: an admin key used from the address that guesses the token. Using the key does not
 * reset that address's count, and the key may not lift its own ban or clear its own failures; another
 * address's ban it still lifts, and the operator's CLI on the machine lifts any.
 */
describe('an admin API key and its own ban', () => {
  let server: ServerProcess;
  let token: string;
  let key: string;
  /** The operator's browser session (the access token), from 127.0.0.10. */
  let operator: HttpClient;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const wrong = (localAddress: string, n: number) =>
    from(localAddress).post('/auth/verify', { body: { token: `wrong-guess-${n}` }, cookie: null });
  const withKey = (localAddress: string) => {
    const client = from(localAddress);
    const headers = { authorization: `Bearer ${key}` };
    return {
      get: (path: string) => client.get(path, { headers, cookie: null }),
      lift: (target: string) => client.request('DELETE', `/security/bans/${encodeURIComponent(target)}`, { headers, cookie: null }),
    };
  };
  const listed = async (): Promise<Array<{ key: string; failures: number; banned_until: string | null }>> => {
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return response.json?.['bans'] as Array<{ key: string; failures: number; banned_until: string | null }>;
  };

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    operator = from('127.0.0.10');
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const created = await operator.post('/keys', { body: { name: 'deploy', scope: 'admin', expires: null } });
    expect(created.status, created.text).toBe(200);
    key = created.json?.['key'] as string;
  });

  it(
    'four wrong guesses, the key in use, and refused lifts of its own address, `all` and a CIDR holding it: the fifth ' + 'guess bans',
    async () => {
      for (let n = 1; n <= 4; n++) expect((await wrong(GUESSER, n)).json).toMatchObject({ valid: false });
      // The key works from the guessing address, and using it is no login of the token.
      expect((await withKey(GUESSER).get('/auth/check')).json).toMatchObject({
        authenticated: true,
        key: { name: 'deploy', scope: 'admin' },
      });
      expect((await withKey(GUESSER).get('/security/bans')).status).toBe(200);

      for (const target of [GUESSER, 'all', '127.0.0.0/24', '127.0.0.41/32', '0.0.0.0/0']) {
        const refused: HttpResponse = await withKey(GUESSER).lift(target);
        expectErrorBody(refused, 403, 'own_ban');
        expect(refused.json?.['detail']).toMatch(/webui bans lift/);
      }
      expect(await listed()).toEqual([{ key: GUESSER, failures: 4, banned_until: null, last_attempt: expect.any(String) }]);
      await server.waitForLog(
        (line) =>
          line.msg === 'ban lift refused: an API key may not lift its own ban' && line['ip'] === GUESSER && line['target'] === 'all',
      );

      expectErrorBody(await wrong(GUESSER, 5), 429, 'too_many_attempts');
      // A banned address stays banned, with the key too.
      expectErrorBody(await withKey(GUESSER).lift(GUESSER), 429, 'too_many_attempts');
      expectErrorBody(await withKey(GUESSER).get('/auth/check'), 429, 'too_many_attempts');
    },
  );

  it("the key lifts another address's ban", async () => {
    for (let n = 1; n <= 5; n++) await wrong('127.0.0.42', n);
    expect((await listed()).find((entry) => entry.key === '127.0.0.42')?.banned_until).not.toBeNull();
    const lifted = await withKey('127.0.0.43').lift('127.0.0.42');
    expect(lifted.status, lifted.text).toBe(200);
    expect(lifted.json).toMatchObject({ success: true, lifted: [{ key: '127.0.0.42' }] });
    expect((await from('127.0.0.42').post('/auth/verify', { body: { token }, cookie: null })).json).toMatchObject({ valid: true });
  });

  // The CLI reaches apps/server's control socket; Bun and Deno have none.
  it.skipIf(defaultLauncher.name !== 'node')('the operator on the machine lifts the guessing address with webui bans lift', async () => {
    const run = await runWebui(server.cwd, ['bans', 'lift', GUESSER]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^lifted ${GUESSER.replaceAll('.', '\\.')} \\(banned until`));
    expect((await withKey(GUESSER).get('/auth/check')).json).toMatchObject({ authenticated: true });
  });
});
