import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const BUDGET = 3;

function expectServerThrottle(response: HttpResponse): void {
  expectErrorBody(response, 429, 'too_many_attempts');
  expect(response.json?.['detail']).toMatch(/server/);
}

/**
 * Issue 31, item 5: a spent global budget turns away new clients, but never a script presenting a valid
 * API key (256 random bits: nothing to guess). Wrong keys and the token still meet the budget, and
 * using a key is no login of the token from that address.
 */
describe('global_failure_budget = 3, spent from rotating addresses, and API keys', () => {
  let server: ServerProcess;
  let token: string;
  let key: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const bearer = (localAddress: string, secret: string, path: string) =>
    from(localAddress).get(path, { headers: { authorization: `Bearer ${secret}` }, cookie: null });
  const verify = (localAddress: string, secret: string) =>
    from(localAddress).post('/auth/verify', { body: { token: secret }, cookie: null });

  beforeAll(async () => {
    server = await startServer({ config: ['[webui]', `global_failure_budget = ${BUDGET}`, ''].join('\n') });
    token = readWebuiFile(server.dataDir).access_token;
    const operator = from('127.0.0.10');
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const created = await operator.post('/keys', { body: { name: 'backup', scope: 'read', expires: null } });
    expect(created.status, created.text).toBe(200);
    key = created.json?.['key'] as string;

    // Twice the budget admitted (the last three held back), one guess per address: no address is near its own ban.
    for (let n = 1; n <= 2 * BUDGET; n++)
      expect((await verify(`127.0.0.${100 + n}`, `wrong-guess-${n}`)).json).toMatchObject({ valid: false });
    expectServerThrottle(await verify('127.0.0.107', 'wrong-guess-7'));
  }, 30_000);

  it('a valid key from a new address answers 200, through /auth/check (the fast path) and the app alike', async () => {
    const check = await bearer('127.0.0.120', key, '/auth/check');
    expect(check.status, check.text).toBe(200);
    expect(check.json).toMatchObject({ authenticated: true, key: { name: 'backup', scope: 'read' } });
    const bans = await bearer('127.0.0.121', key, '/security/bans');
    expect(bans.status, bans.text).toBe(200);
    expect(bans.json?.['bans']).toHaveLength(2 * BUDGET);
  });

  it('the token from a new address is turned away, as bearer and as a login', async () => {
    expectServerThrottle(await verify('127.0.0.122', token));
    expectServerThrottle(await bearer('127.0.0.123', token, '/auth/check'));
  });

  it('a wrong key from a new address meets the budget too', async () => {
    expectServerThrottle(await bearer('127.0.0.124', `wk_${'A'.repeat(43)}`, '/auth/check'));
    expectServerThrottle(await bearer('127.0.0.124', `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, '/security/bans'));
  });

  it('the address that used the key has not logged in: its token is still turned away', async () => {
    expect((await bearer('127.0.0.120', key, '/auth/check')).status).toBe(200);
    expectServerThrottle(await verify('127.0.0.120', token));
  });
});
