import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const BAN_MS = 10 * 60_000;

interface BanEntryJson {
  key: string;
  failures: number;
  banned_until: string | null;
  last_attempt: string | null;
}

/** The wall-clock span in which a request was answered: the server stamped its attempt somewhere inside it. */
interface Span {
  from: number;
  to: number;
}

async function timed(send: () => Promise<HttpResponse>): Promise<{ response: HttpResponse; span: Span }> {
  const from = Date.now();
  const response = await send();
  return { response, span: { from, to: Date.now() } };
}

const iso = (value: unknown) => Date.parse(String(value));

function expectWithin(value: unknown, span: Span, offsetMs = 0): void {
  expect(typeof value, `an ISO time, got ${JSON.stringify(value)}`).toBe('string');
  expect(new Date(iso(value)).toISOString()).toBe(value);
  expect(iso(value)).toBeGreaterThanOrEqual(span.from + offsetMs);
  expect(iso(value)).toBeLessThanOrEqual(span.to + offsetMs);
}

/** The HTTP ban endpoints of issue 18 against the real process: what an operator sees and lifts, over real sockets. */
describe('GET /api/webui/security/bans and DELETE /api/webui/security/bans/{key}', () => {
  let server: ServerProcess;
  let token: string;
  /** The operator, logged in from 127.0.0.10; its jar holds the session cookie. */
  let operator: HttpClient;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const wrong = (client: HttpClient, n: number) => client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, cookie: null });
  const login = (client: HttpClient) => client.post('/auth/verify', { body: { token }, cookie: null });
  const list = async (): Promise<BanEntryJson[]> => {
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return response.json?.['bans'] as BanEntryJson[];
  };
  const lift = (key: string, headers: Record<string, string> = {}) => operator.request('DELETE', `/security/bans/${key}`, { headers });

  /** Failures 1..n from one address; the span of the last one. */
  async function failures(client: HttpClient, n: number): Promise<{ last: HttpResponse; span: Span }> {
    for (let i = 1; i < n; i++) expect((await wrong(client, i)).status).toBe(200);
    const { response, span } = await timed(() => wrong(client, n));
    return { last: response, span };
  }

  let banned: { key: string; span: Span };
  let twice: { key: string; span: Span };

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    operator = from('127.0.0.10');
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });

    const fifth = await failures(from('127.0.0.21'), 5);
    expectErrorBody(fifth.last, 429, 'too_many_attempts');
    banned = { key: '127.0.0.21', span: fifth.span };
    const second = await failures(from('127.0.0.22'), 2);
    expect(second.last.json).toMatchObject({ valid: false });
    twice = { key: '127.0.0.22', span: second.span };
  });

  it('without a login GET answers 401 with the error body (docs/decisions/0001-error-bodies.md) and lists nothing', async () => {
    const anonymous = from('127.0.0.11');
    const response = await anonymous.get('/security/bans');
    expectErrorBody(response, 401, 'not_authenticated');
    expect(response.json).not.toHaveProperty('bans');
  });

  it(
    'lists the banned address first, then the address with 2 failures, with exact failures, banned_until (~10 min ahead) and ' +
      'last_attempt',
    async () => {
      const bans = await list();
      expect(bans.map((entry) => entry.key)).toEqual([banned.key, twice.key]);
      const [ban, counted] = bans as [BanEntryJson, BanEntryJson];

      // A ban starts a new count: the banned address shows 0 failures and the ban's end.
      expect(ban.failures).toBe(0);
      expectWithin(ban.banned_until, banned.span, BAN_MS);
      expectWithin(ban.last_attempt, banned.span);
      expect(iso(ban.banned_until) - iso(ban.last_attempt)).toBe(BAN_MS);

      expect(counted).toEqual({ key: twice.key, failures: 2, banned_until: null, last_attempt: expect.any(String) });
      expectWithin(counted.last_attempt, twice.span);
    },
  );

  it('a DELETE from a foreign Origin, or sent cross-site without Origin, or without a login, is refused and lifts nothing', async () => {
    const before = await list();
    expectErrorBody(await lift(banned.key, { origin: 'http://evil.example' }), 403, 'origin_not_allowed');
    expectErrorBody(await lift('all', { origin: 'http://evil.example' }), 403, 'origin_not_allowed');
    expectErrorBody(await lift('all', { 'sec-fetch-site': 'cross-site' }), 403, 'cross_site_request');
    expectErrorBody(await from('127.0.0.11').request('DELETE', '/security/bans/all'), 401, 'not_authenticated');
    expect(await list()).toEqual(before);
    // Still banned: the right token is refused.
    expectErrorBody(await login(from(banned.key)), 429, 'too_many_attempts');
  });

  it('DELETE /security/bans/127.0.0.21 lifts that ban only, answers what it lifted, and the address logs in at once', async () => {
    const before = await list();
    const response = await lift(banned.key);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({ success: true, lifted: [before[0]] });

    expect(await list()).toEqual([before[1]]);
    await server.waitForLog(
      (line) => line.msg === 'bans lifted' && line['via'] === 'api' && JSON.stringify(line['lifted']) === JSON.stringify([banned.key]),
    );
    const again = await login(from(banned.key));
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ valid: true });
  });

  it('a lift that matches nothing answers success with an empty list; an invalid key answers 400 invalid_ban_target', async () => {
    const before = await list();
    const nothing = await lift('10.9.9.9');
    expect(nothing.status).toBe(200);
    expect(nothing.json).toEqual({ success: true, lifted: [] });
    expectErrorBody(await lift('not%20valid'), 400, 'invalid_ban_target');
    expect(await list()).toEqual(before);
  });

  it('DELETE /security/bans/all lifts every ban and every count; the lifted addresses log in at once', async () => {
    const third = await failures(from('127.0.0.23'), 5);
    expectErrorBody(third.last, 429, 'too_many_attempts');
    const before = await list();
    expect(before.map((entry) => entry.key)).toEqual(['127.0.0.23', twice.key]);

    const response = await lift('all');
    expect(response.status, response.text).toBe(200);
    // Each as it was listed, ordered by key.
    const listed = (key: string) => before.find((entry) => entry.key === key);
    expect(response.json).toEqual({ success: true, lifted: [listed(twice.key), listed('127.0.0.23')] });
    expect(await list()).toEqual([]);
    for (const address of ['127.0.0.23', twice.key]) expect((await login(from(address))).json).toMatchObject({ valid: true });
  });

  it('an IPv6 client over ::1 is listed under its /64 key and lifted by the percent-encoded key', async (context) => {
    if (!server.addresses.some((address) => address.startsWith('http://[::1]:'))) context.skip();
    const ipv6 = new HttpClient(`http://[::1]:${server.port}`);
    const { last } = await failures(ipv6, 5);
    expectErrorBody(last, 429, 'too_many_attempts');

    const bans = await list();
    expect(bans).toEqual([{ key: '::/64', failures: 0, banned_until: expect.any(String), last_attempt: expect.any(String) }]);
    expectErrorBody(await login(ipv6), 429, 'too_many_attempts');

    const encoded = encodeURIComponent('::/64');
    expect(encoded).toBe('%3A%3A%2F64');
    const response = await lift(encoded);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({ success: true, lifted: bans });
    expect(await list()).toEqual([]);
    expect((await login(ipv6)).json).toMatchObject({ valid: true });
  });
});
