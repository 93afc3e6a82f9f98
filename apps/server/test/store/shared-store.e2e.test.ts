import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { ticketFor } from '../harness/clients/unread-socket.js';
import { startNginx, stopAllNginx, type NginxProxy } from '../harness/proxies/nginx.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { connect, type WsClient } from '../harness/clients/ws-client.js';

// Three instances on one Redis behind nginx's round-robin, as the README recipe sets them up.
let redis: RedisServerHandle;
let instances: ServerProcess[];
let proxy: NginxProxy;
const prefix = `webui-e2e-${process.pid}-${Date.now()}:`;

const CONFIG = '[webui]\ntrusted_proxies = ["127.0.0.1"]\n';

const temporaryTokenOf = (server: ServerProcess): unknown =>
  server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token'];
const instance = (index: number): ServerProcess => instances[index] as ServerProcess;
const auditLines = (server: ServerProcess): string[] =>
  existsSync(join(server.dataDir, 'audit.log'))
    ? readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

beforeAll(async () => {
  redis = await startRedisServer();
  const env = { WEBUI_STORE: redis.url };
  instances = [];
  // One after another: each later start finds the others running (the docs/decisions/0011-temporary-token.md case below).
  for (let i = 0; i < 3; i++) instances.push(await startServer({ config: `${CONFIG}store_prefix = "${prefix}"\n`, env }));
  proxy = await startNginx(instances.map((server) => server.port));
}, 120_000);

afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
  await redis?.stop();
});

/** A client at `address` talking to one instance directly. */
const direct = (index: number, address: string) => new HttpClient(instance(index).baseUrl, { localAddress: address });

async function loggedIn(client: HttpClient, token: string): Promise<void> {
  expect((await client.post('/auth/verify', { body: { token } })).status).toBe(200);
}

describe('several instances sharing one Redis', () => {
  it('prints one temporary token: instances started while another runs keep and print the token in force', () => {
    const first = temporaryTokenOf(instance(0));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(temporaryTokenOf(instance(1))).toBe(first);
    expect(temporaryTokenOf(instance(2))).toBe(first);
    for (const server of instances) expect(server.stderr()).toContain(`temporary: ${String(first)}`);
    expect(instance(2).stderr()).toContain('kept: 2 other running instances on this store use it');
    // The banner names the store without a password, and no instance wrote a webui.json.
    expect(instance(0).stderr()).toContain(`data        ${redis.url}`);
  });

  it('five failed logins spread over the three through nginx: the sixth is 429 on every instance', async () => {
    const viaProxy = new HttpClient(proxy.httpUrl, { localAddress: '127.0.0.21' });
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 5; i++) answers.push(await viaProxy.post('/auth/verify', { body: { token: `wrong-guess-${i}` } }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 429]);
    // Counted as one client's across instances: the reminders say 2, then 1 left, then the ban.
    expect(answers.slice(0, 4).map((res) => res.json?.['valid'])).toEqual([false, false, false, false]);
    expect(answers.slice(2, 4).map((res) => res.json?.['remaining_attempts'])).toEqual([2, 1]);
    // nginx spread them: every instance counted at least one.
    const failuresLogged = instances.map(
      (server) => server.logs().filter((line) => line.msg === 'login failed' && line['ip'] === '127.0.0.21').length,
    );
    expect(failuresLogged.every((count) => count >= 1)).toBe(true);
    expect(failuresLogged.reduce((sum, count) => sum + count, 0)).toBe(4);
    for (let i = 0; i < 3; i++) {
      const sixth = await direct(i, '127.0.0.21').post('/auth/verify', { body: { token: String(temporaryTokenOf(instance(0))) } });
      expectErrorBody(sixth, 429, 'too_many_attempts');
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(500);
    }
    // Through the proxy too, whichever instance answers.
    for (let i = 0; i < 3; i++) expect((await viaProxy.get('/auth/check', { cookie: 'bot_session=another-guess' })).status).toBe(429);
  });

  it('a ticket from instance A opens a socket on B, and the same ticket is refused on C', async () => {
    const a = direct(0, '127.0.0.22');
    await loggedIn(a, String(temporaryTokenOf(instance(0))));
    const ticket = await ticketFor(a);
    const onB = await connect(instance(1), ticket);
    expect(onB.opened).toBe(true);
    const onC = await connect(instance(2), ticket);
    expect(onC).toEqual({ status: 401, opened: false });
    if (onB.opened) onB.client.close();
  });

  it('the token changed through A: the old cookie is refused on B at once and sockets on C close with 4001 within a second', async () => {
    const oldToken = String(temporaryTokenOf(instance(0)));
    const a = direct(0, '127.0.0.23');
    const b = direct(1, '127.0.0.23');
    const c = direct(2, '127.0.0.23');
    for (const client of [a, b, c]) await loggedIn(client, oldToken);
    const onC = await connect(instance(2), await ticketFor(c));
    if (!onC.opened) throw new Error('no socket on C');
    const socket: WsClient = onC.client;

    const changed = await a.post('/auth/update', { body: { new_token: STRONG_TOKEN } });
    expect(changed.status).toBe(200);
    const started = Date.now();
    const check = await b.get('/auth/check');
    expect(check.json).toEqual({ authenticated: false });
    expect((await socket.closedWithin(1_000)).code).toBe(4001);
    expect(Date.now() - started).toBeLessThan(1_000);

    // The new token works everywhere.
    for (let i = 0; i < 3; i++) await loggedIn(direct(i, '127.0.0.24'), STRONG_TOKEN);
    // Audited once, by the instance that made the change; the others do not take it for a hand edit.
    const audited = instances.map((server) =>
      auditLines(server).filter((line) => line.includes('"event":"token_changed"') && !line.includes('"via":"startup"')),
    );
    expect(audited[0]).toHaveLength(1);
    expect(audited[0]?.[0]).toContain('"via":"api"');
    expect([...(audited[1] ?? []), ...(audited[2] ?? [])]).toEqual([]);
  });

  it(
    'Redis killed under traffic: only 503s with the error body (docs/decisions/0001-error-bodies.md), a right cookie as a wrong one; Redis back: the same sessions work ' +
      'again without a restart',
    async () => {
      const clients = [0, 1, 2].map((i) => direct(i, '127.0.0.25'));
      for (const client of clients) await loggedIn(client, STRONG_TOKEN);
      await redis.kill();

      const answers: HttpResponse[] = [];
      for (const client of clients) {
        answers.push(await client.post('/auth/verify', { body: { token: STRONG_TOKEN } }));
        answers.push(await client.post('/auth/verify', { body: { token: 'a-guess-while-down' } }));
        answers.push(await client.post('/setup/complete'));
        answers.push(await client.get('/ws-token'));
        answers.push(await client.get('/health'));
      }
      for (const res of answers) {
        expectErrorBody(res, 503, 'store_unavailable');
        expect(res.headers['retry-after']).toBe('5');
      }
      // No cookie is checked while its failure could not be counted: the right one answers as a wrong one does.
      for (const client of clients) {
        const [right, wrong] = await Promise.all([client.get('/auth/check'), client.get('/auth/check', { cookie: 'bot_session=wrong' })]);
        expectErrorBody(right, 503, 'store_unavailable');
        expect({ status: wrong.status, json: wrong.json }).toEqual({ status: right.status, json: right.json });
      }

      await redis.restart();
      await eventually(
        () => instances.every((server) => server.logs().some((line) => line.msg === 'the shared store is reachable again')),
        10_000,
        'every instance reconnected',
      );
      for (const client of clients) {
        expect((await client.get('/health')).status).toBe(200);
        expect((await client.get('/auth/check')).json).toMatchObject({ authenticated: true });
        expect((await client.get('/ws-token')).status).toBe(200);
      }
      for (const server of instances) {
        expect(
          server
            .logs()
            .filter(
              (line) =>
                (line.level ?? 0) >= 50 && line.msg !== 'the shared store is unreachable: logins and changes answer 503 until it is back',
            ),
        ).toEqual([]);
        expect(server.stdout() + server.stderr()).not.toMatch(/unhandled|ECONNREFUSED.*at /i);
      }
    },
  );
});
