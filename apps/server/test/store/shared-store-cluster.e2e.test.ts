import { startRedisCluster, type RedisClusterHandle } from '@webui/store-redis/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { ticketFor } from '../harness/clients/unread-socket.js';
import { startNginx, stopAllNginx, type NginxProxy } from '../harness/proxies/nginx.js';
import { addressOn, attemptsMasterOf, guessUntil, type Answer } from '../harness/clients/cluster-traffic.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { connect, type WsClient } from '../harness/clients/ws-client.js';

// Three instances on a six-node Redis Cluster (three masters, a replica each) behind nginx's round-robin.
let cluster: RedisClusterHandle;
let instances: ServerProcess[];
let proxy: NginxProxy;
const prefix = `webui-cluster-${process.pid}-${Date.now()}:`;
// The global budget as high as it goes: written and read on every guess (its keys on every master) and never in the way.
const CONFIG = `[webui]\ntrusted_proxies = ["127.0.0.1"]\nstore_prefix = "${prefix}"\nglobal_failure_budget = 1000000\n`;

const instance = (index: number): ServerProcess => instances[index] as ServerProcess;
const temporaryToken = (): string =>
  String(
    instance(0)
      .logs()
      .find((line) => line['temporary_token'] !== undefined)?.['temporary_token'],
  );
const direct = (index: number, address: string) => new HttpClient(instance(index).baseUrl, { localAddress: address });
const cookie = (value: string) => ({ cookie: `bot_session=${value}` });

beforeAll(async () => {
  cluster = await startRedisCluster();
  instances = [];
  for (let i = 0; i < 3; i++) instances.push(await startServer({ config: CONFIG, env: { WEBUI_STORE: cluster.url } }));
  proxy = await startNginx(instances.map((server) => server.port));
}, 120_000);

afterAll(async () => {
  await stopAllNginx();
  await cleanupServers();
  await cluster?.stop();
});

async function loggedIn(client: HttpClient, token: string): Promise<void> {
  expect((await client.post('/auth/verify', { body: { token } })).status).toBe(200);
}

describe('three instances sharing a Redis Cluster', () => {
  it('the banner names the cluster; every instance prints the one temporary token', () => {
    expect(temporaryToken()).toMatch(/^[0-9a-f]{64}$/);
    for (const server of instances) {
      expect(server.stderr()).toContain(`data        ${cluster.url}`);
      expect(server.stderr()).toContain(`temporary: ${temporaryToken()}`);
    }
  });

  it('five failed logins spread over the three through nginx ban at the fifth, on every instance', async () => {
    const viaProxy = new HttpClient(proxy.httpUrl, { localAddress: '127.0.0.31' });
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 5; i++) answers.push(await viaProxy.post('/auth/verify', { body: { token: `wrong-guess-${i}` } }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.slice(2, 4).map((res) => res.json?.['remaining_attempts'])).toEqual([2, 1]);
    const failuresLogged = instances.map(
      (server) => server.logs().filter((line) => line.msg === 'login failed' && line['ip'] === '127.0.0.31').length,
    );
    expect(failuresLogged.every((count) => count >= 1)).toBe(true);
    for (let i = 0; i < 3; i++) {
      const sixth = await direct(i, '127.0.0.31').post('/auth/verify', { body: { token: temporaryToken() } });
      expectErrorBody(sixth, 429, 'too_many_attempts');
    }
  });

  it('a ticket issued by one instance is redeemed once, on another', async () => {
    const a = direct(0, '127.0.0.32');
    await loggedIn(a, temporaryToken());
    const ticket = await ticketFor(a);
    const onB = await connect(instance(1), ticket);
    expect(onB.opened).toBe(true);
    expect(await connect(instance(2), ticket)).toEqual({ status: 401, opened: false });
    expect(await connect(instance(0), ticket)).toEqual({ status: 401, opened: false });
    if (onB.opened) onB.client.close();
  });

  it('a token change through one instance closes the sockets on all three with 4001', async () => {
    await tokenChangeClosesEverySocket('127.0.0.33', temporaryToken(), STRONG_TOKEN, 2_000);
  });

  it('a planned CLUSTER FAILOVER under traffic: no 5xx, and every failure counted exactly once', async () => {
    let handedOver = false;
    // Six workers over the three instances, each taking one address after another to its ban (five guesses), until the
    // master has handed over to its replica: addresses on every shard, so on every master, the one failing over among them.
    const done: Array<{ address: string; answers: Answer[] }> = [];
    const finished = Array.from({ length: 6 }, () => 0);
    const workers = Array.from({ length: 6 }, async (_, worker) => {
      for (let n = 0; !handedOver || n < 3; n++) {
        const address = `127.${10 + worker}.${Math.floor(n / 250)}.${(n % 250) + 1}`;
        done.push({ address, answers: await guessUntil(instance(worker % 3).baseUrl, address, (answers) => answers.length >= 5) });
        finished[worker] = (finished[worker] ?? 0) + 1;
      }
    });
    // A quick handover can end before any guess lands on the shard it moves: the same shard is handed over again (back
    // and forth between its two nodes), at most three times, until one did.
    let master = (await cluster.masters())[0] as number;
    let inFlightOnMovedShard = 0;
    for (let handover = 0; handover < 3 && inFlightOnMovedShard === 0; handover++) {
      const startedAt = Date.now();
      const promoted = await cluster.failover(master);
      const endedAt = Date.now();
      expect(await cluster.masters()).toContain(promoted);
      master = promoted;
      // Every guess in flight at the end belongs to a run that each worker finishes next.
      const seen = [...finished];
      await vi.waitFor(() => expect(finished.every((count, worker) => count > (seen[worker] ?? 0))).toBe(true), { timeout: 30_000 });
      const during = done.filter(({ answers }) => answers.some((answer) => answer.at >= startedAt && answer.at <= endedAt));
      const onMoved = await Promise.all(during.map(async ({ address }) => (await attemptsMasterOf(cluster, prefix, address)) === promoted));
      inFlightOnMovedShard = onMoved.filter(Boolean).length;
    }
    handedOver = true;
    await Promise.all(workers);
    // Guesses were in flight during a handover, some of them on the shard that changed master.
    expect(inFlightOnMovedShard).toBeGreaterThan(0);
    for (const { answers } of done) {
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
      // The reminder comes with the last two attempts left: one failure lost or counted twice would shift it.
      expect(answers.slice(0, 4).map((answer) => answer.remaining)).toEqual([undefined, undefined, 2, 1]);
    }
  }, 90_000);

  it(
    'kill -STOP of a master: only 503 store_unavailable until its replica is promoted, then service; kill -CONT: the counts ' +
      'replicated before the freeze are all there',
    async () => {
      const address = '127.0.2.1';
      const client = direct(0, address);
      const master = await attemptsMasterOf(cluster, prefix, address);
      const replica = await cluster.replicaOf(master);
      // Two failures counted, acknowledged and replicated before the freeze.
      for (let i = 0; i < 2; i++)
        expect((await client.post('/auth/verify', { body: { token: `wrong-${i}` } })).json).toMatchObject({ valid: false });
      await cluster.replicated(master);

      // Logins of another client whose counts the same master holds, on every instance: they change nothing of the first client's.
      const probeAddress = await addressOn(cluster, prefix, master, 3);
      const frozenAt = Date.now();
      cluster.freeze(master);
      let promotedAt = 0;
      const promotion = cluster.promotionOf(master).then(() => (promotedAt = Date.now()));
      const served = await Promise.all(
        [0, 1, 2].map(async (i) => {
          const probe = direct(i, probeAddress);
          const answers: Answer[] = [];
          for (;;) {
            const res = await probe.post('/auth/verify', { body: { token: STRONG_TOKEN } });
            answers.push({ status: res.status, at: Date.now(), code: res.json?.['code'] });
            if (res.status !== 503) return answers;
            expectErrorBody(res, 503, 'store_unavailable');
            if (Date.now() - frozenAt > 30_000) throw new Error(`instance ${i} still answers 503 30 s after the freeze`);
          }
        }),
      );
      await promotion;
      for (const answers of served) {
        expect(answers.length).toBeGreaterThan(1);
        expect((answers.at(-1) as Answer).status).toBe(200);
        // Served again within a few seconds of the promotion (ioredis refreshes the slots every second).
        expect((answers.at(-1) as Answer).at - promotedAt).toBeLessThan(8_000);
      }
      expect(await cluster.masters()).toContain(replica);

      // The third failure is counted on the promoted replica, on top of the two from before the freeze.
      const third = await client.post('/auth/verify', { body: { token: 'wrong-2' } });
      expect({ status: third.status, json: third.json }).toMatchObject({ status: 200, json: { valid: false, remaining_attempts: 2 } });
      cluster.thaw(master);
      await cluster.healthy();
      expect((await direct(1, address).post('/auth/verify', { body: { token: 'wrong-3' } })).json?.['remaining_attempts']).toBe(1);
      expect((await direct(2, address).post('/auth/verify', { body: { token: 'wrong-4' } })).status).toBe(429);
      for (const server of instances) expect(server.logs().filter((line) => (line.level ?? 0) >= 60)).toEqual([]);
    },
    60_000,
  );

  it(
    'kill -STOP of the master holding a banned and a logged-in address: every instance answers their right cookie as a wrong ' +
      'one (503), until the promoted replica answers again with the ban in force',
    async () => {
      const master = (await cluster.masters())[1] as number;
      const [bannedAddress, loggedInAddress] = [await addressOn(cluster, prefix, master, 4), await addressOn(cluster, prefix, master, 5)];
      const token = STRONG_TOKEN;
      await guessUntil(instance(0).baseUrl, bannedAddress, (answers) => answers.length >= 5);
      for (let i = 0; i < 3; i++) {
        expectErrorBody(await direct(i, bannedAddress).get('/auth/check', cookie(token)), 429, 'too_many_attempts');
        // A login, but no check yet: nothing of this address is in any instance's memory of clean clients.
        expect((await direct(i, loggedInAddress).post('/auth/verify', { body: { token } })).status).toBe(200);
      }
      await cluster.replicated(master);

      cluster.freeze(master);
      const promotion = cluster.promotionOf(master);
      // Asked at once: each waits out the command timeout on the frozen master, well before a replica can be promoted.
      const pairs = await Promise.all(
        [0, 1, 2].flatMap((i) =>
          [bannedAddress, loggedInAddress].flatMap((address) =>
            ['/auth/check', '/setup/status'].map((path) =>
              Promise.all([token, `${token}0`].map((value) => direct(i, address).get(path, cookie(value)))),
            ),
          ),
        ),
      );
      for (const [right, wrong] of pairs as Array<[HttpResponse, HttpResponse]>) {
        expectErrorBody(right, 503, 'store_unavailable');
        expect({ status: wrong.status, json: wrong.json }).toEqual({ status: right.status, json: right.json });
      }

      // Served again once each instance follows the promoted replica (a few seconds, answering 503 meanwhile): the ban in force.
      await promotion;
      const bannedAnswers: number[] = [];
      for (let i = 0; i < 3; i++) {
        const banned = direct(i, bannedAddress);
        const loggedIn = direct(i, loggedInAddress);
        await eventually(
          async () => {
            const { status } = await banned.get('/auth/check', cookie(token));
            bannedAnswers.push(status);
            return status === 429;
          },
          15_000,
          `instance ${i} refusing the banned address again`,
        );
        await eventually(async () => (await loggedIn.get('/auth/check', cookie(token))).status === 200, 15_000, `instance ${i} serving`);
      }
      expect(bannedAnswers.filter((status) => status !== 503 && status !== 429)).toEqual([]);
      cluster.thaw(master);
      await cluster.healthy();
    },
    60_000,
  );

  it('after the failovers, a token change still reaches every instance (its subscription followed the nodes)', async () => {
    // Within the 5 s re-read of the record at worst, should a subscriber have missed the announcement while it moved.
    await tokenChangeClosesEverySocket('127.0.0.35', STRONG_TOKEN, OTHER_STRONG_TOKEN, 6_000);
  });
});

/** Sockets on all three instances, the token changed through the second: every socket closes with 4001, the new token works everywhere. */
async function tokenChangeClosesEverySocket(address: string, token: string, next: string, withinMs: number): Promise<void> {
  const clients = [0, 1, 2].map((i) => direct(i, address));
  const sockets: WsClient[] = [];
  for (let i = 0; i < 3; i++) {
    const client = clients[i] as HttpClient;
    await loggedIn(client, token);
    const opened = await connect(instance(i), await ticketFor(client));
    if (!opened.opened) throw new Error(`no socket on instance ${i}`);
    sockets.push(opened.client);
  }
  expect((await (clients[1] as HttpClient).post('/auth/update', { body: { new_token: next } })).status).toBe(200);
  const closed = await Promise.all(sockets.map((socket) => socket.closedWithin(withinMs)));
  expect(closed.map((close) => close.code)).toEqual([4001, 4001, 4001]);
  for (let i = 0; i < 3; i++) await loggedIn(direct(i, `${address.slice(0, -1)}9`), next);
}
