import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { connect } from '../harness/clients/ws-client.js';

// One instance on one Redis that stops answering (kill -STOP), as a hung or partitioned Redis does.
let redis: RedisServerHandle;
let server: ServerProcess;
let token: string;

const BANNED = '127.0.0.41';
const LOGGED_IN = '127.0.0.42';
const GUESSER = '127.0.0.43';
// Never banned, so admitted without asking Redis: its change is the first call that waits on the frozen Redis.
const EXEMPT = '127.0.0.44';
const prefix = `webui-frozen-${process.pid}-${Date.now()}:`;

beforeAll(async () => {
  redis = await startRedisServer();
  const config = `[webui]\nstore_prefix = "${prefix}"\nban_exempt = ["${EXEMPT}"]\n`;
  server = await startServer({ config, env: { WEBUI_STORE: redis.url } });
  token = String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
}, 60_000);

afterAll(async () => {
  redis?.thaw();
  await cleanupServers();
  await redis?.stop();
});

const from = (address: string) => new HttpClient(server.baseUrl, { localAddress: address });
const answer = (res: HttpResponse) => ({ status: res.status, json: res.json });
const cookie = (value: string) => ({ cookie: `bot_session=${value}` });
const bearer = (value: string) => ({ cookie: null, headers: { authorization: `Bearer ${value}` } });

function expectUnavailable(res: HttpResponse): void {
  expectErrorBody(res, 503, 'store_unavailable');
  expect(res.headers['retry-after']).toBe('5');
}

describe('Redis frozen: no credential check tells right from wrong, and nothing answered 503 happens later', () => {
  it(
    'a banned address, a logged-in one, an API key and a ticket: the right and the wrong credential get the same 503; ' +
      'after kill -CONT the ban holds and the guesses answered 503 were not counted',
    async () => {
      const banned = from(BANNED);
      for (let i = 0; i < 4; i++) expect((await banned.post('/auth/verify', { body: { token: `wrong-${i}` } })).status).toBe(200);
      expectErrorBody(await banned.post('/auth/verify', { body: { token: 'wrong-4' } }), 429, 'too_many_attempts');
      expectErrorBody(await banned.get('/auth/check', cookie(token)), 429, 'too_many_attempts');

      const loggedIn = from(LOGGED_IN);
      expect((await loggedIn.post('/auth/verify', { body: { token } })).status).toBe(200);
      const created = await loggedIn.post('/keys', { body: { name: 'monitor', scope: 'admin', expires: null } });
      expect(created.status, created.text).toBe(200);
      const key = String(created.json?.['key']);
      const ticket = String((await loggedIn.get('/ws-token')).json?.['token']);
      // Logged in and read clean a moment ago, as a dashboard polling: its guess during the freeze must leave nothing behind.
      expect((await from(GUESSER).post('/auth/verify', { body: { token } })).status).toBe(200);
      expect((await from(GUESSER).get('/auth/check', cookie(token))).status).toBe(200);

      redis.freeze();
      const guess = await from(GUESSER).post('/auth/verify', { body: { token: 'a-guess-while-frozen' } });
      expectUnavailable(guess);

      // The banned address: its right cookie and token are no more use than wrong ones.
      const bannedAnswers = await Promise.all([
        banned.get('/auth/check', cookie(token)),
        banned.get('/auth/check', cookie('wrong-cookie')),
        banned.get('/setup/status', cookie(token)),
        banned.get('/setup/status', cookie('wrong-cookie')),
        banned.post('/auth/verify', { body: { token } }),
      ]);
      for (const res of bannedAnswers) expectUnavailable(res);
      expect(new Set(bannedAnswers.map((res) => JSON.stringify(answer(res)))).size).toBe(1);

      // The logged-in address, by cookie, by bearer and by ticket: right and wrong alike.
      const pairs = await Promise.all(
        [
          (credential: string) => loggedIn.get('/auth/check', cookie(credential)),
          (credential: string) => loggedIn.get('/setup/status', cookie(credential)),
          (credential: string) => loggedIn.get('/ws-token', cookie(credential)),
        ]
          .map((ask) => [ask(token), ask(`${token}0`)])
          .concat([
            [loggedIn.get('/auth/check', bearer(key)), loggedIn.get('/auth/check', bearer(`${key}0`))],
            [loggedIn.get('/security/bans', bearer(key)), loggedIn.get('/security/bans', bearer(`${key}0`))],
          ])
          .map((pair) => Promise.all(pair)),
      );
      for (const [right, wrong] of pairs as Array<[HttpResponse, HttpResponse]>) {
        expectUnavailable(right);
        expect(answer(wrong)).toEqual(answer(right));
      }
      const [rightTicket, wrongTicket] = await Promise.all([connect(server, ticket), connect(server, `${ticket.slice(1)}x`)]);
      expect(rightTicket).toEqual({ status: 503, opened: false });
      expect(wrongTicket).toEqual(rightTicket);

      redis.thaw();
      await eventually(async () => (await banned.get('/auth/check', cookie(token))).status !== 503, 10_000, 'Redis answering again');
      expectErrorBody(await banned.get('/auth/check', cookie(token)), 429, 'too_many_attempts');
      expect((await loggedIn.get('/auth/check')).json).toMatchObject({ authenticated: true });
      // The guess answered 503 was not counted when Redis ran it: no failure of the guesser's is listed.
      const bans = await loggedIn.get('/security/bans');
      expect(bans.status).toBe(200);
      const listed = (bans.json?.['bans'] as Array<{ key: string }>).map((entry) => entry.key);
      expect(listed).toContain(BANNED);
      expect(listed).not.toContain(GUESSER);
      expect(server.logs().filter((line) => (line.level ?? 0) >= 60)).toEqual([]);
    },
    60_000,
  );

  it('a token change answered 503 while Redis was frozen is not made when Redis runs it after kill -CONT', async () => {
    const exempt = from(EXEMPT);
    expect((await exempt.post('/auth/verify', { body: { token } })).status).toBe(200);
    redis.freeze();
    try {
      expectUnavailable(await exempt.post('/auth/update', { body: { new_token: STRONG_TOKEN } }));
    } finally {
      redis.thaw();
    }
    // A connection of its own queues behind what Redis was sent while frozen: by its answer, the change has run or never will.
    const raw = new Redis(redis.url);
    try {
      expect(await raw.hget(`${prefix}record`, 'json')).toContain(token);
    } finally {
      raw.disconnect();
    }
    expect((await exempt.get('/auth/check')).json).toMatchObject({ authenticated: true });
  });
});
