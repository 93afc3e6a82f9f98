import { FakeClock } from '@webui/core/testing';
import { RedisStore } from '@webui/store-redis';
import { floodKeepsBans, startRedisCluster, type RedisClusterHandle } from '@webui/store-redis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { guessUntil, type Answer } from '../harness/clients/cluster-traffic.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';

/**
 * The long Redis Cluster proofs (`npm run test:soak`; `npm test` runs shared-store-cluster.e2e.test.ts and the store's
 * cluster conformance instead): a flood of 200,000 new addresses against a small cap keeps every running ban, and every
 * master in turn frozen (kill -STOP) under traffic through three instances: only 503 store_unavailable until its replica is
 * promoted, never another 5xx, then service on every instance; thawed, it rejoins as a replica.
 */

let cluster: RedisClusterHandle;
let instances: ServerProcess[];
const prefix = `webui-soak-${process.pid}-${Date.now()}:`;
const CONFIG = `[webui]\ntrusted_proxies = ["127.0.0.1"]\nstore_prefix = "${prefix}"\nglobal_failure_budget = 1000000\n`;
const temporaryToken = (): string =>
  String(instances[0]?.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
const FLOOD = Number(process.env['WEBUI_CLUSTER_FLOOD'] ?? 200_000);

beforeAll(async () => {
  cluster = await startRedisCluster();
  instances = [];
  for (let i = 0; i < 3; i++) instances.push(await startServer({ config: CONFIG, env: { WEBUI_STORE: cluster.url } }));
}, 120_000);

afterAll(async () => {
  await cleanupServers();
  await cluster?.stop();
});

describe('Redis Cluster at length', () => {
  it(`a flood of ${FLOOD} new addresses against a cap of 1024 counts: all 50 running bans survive`, async () => {
    const clock = new FakeClock();
    const store = await RedisStore.connect({ url: cluster.url, prefix: `${prefix}flood:`, clock, limits: { maxAttemptKeys: 1024 } });
    try {
      expect(await floodKeepsBans(store, clock.now(), FLOOD)).toEqual({ bansKept: 50, counted: 1024 });
    } finally {
      await store.close();
    }
  }, 600_000);

  it('every master frozen in turn under traffic: only 503 store_unavailable until the promotion, then every instance serves', async () => {
    for (let round = 0; round < 3; round++) {
      const master = (await cluster.masters())[round % 3] as number;
      let over = false;
      const workers = Array.from({ length: 6 }, async (_, worker) => {
        const answers: Answer[] = [];
        for (let n = 0; !over; n++) {
          const address = `127.${20 + round * 6 + worker}.${Math.floor(n / 250)}.${(n % 250) + 1}`;
          answers.push(...(await guessUntil(instances[worker % 3]?.baseUrl as string, address, (run) => run.length >= 5)));
        }
        return answers;
      });
      cluster.freeze(master);
      const promotedAt = await cluster.promotionOf(master).then(() => Date.now());
      // Every instance serves a login within a few seconds of the promotion.
      await Promise.all(
        instances.map(async (server, i) => {
          const client = new HttpClient(server.baseUrl, { localAddress: `127.${40 + round}.0.${i + 1}` });
          for (;;) {
            const res = await client.post('/auth/verify', { body: { token: temporaryToken() } });
            if (res.status === 200) break;
            expectErrorBody(res, 503, 'store_unavailable');
            expect(Date.now() - promotedAt, `instance ${i} after the promotion`).toBeLessThan(8_000);
          }
        }),
      );
      over = true;
      const answers = (await Promise.all(workers)).flat();
      cluster.thaw(master);
      await cluster.healthy();
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) {
        expect([200, 429, 503]).toContain(answer.status);
        if (answer.status === 503) expect(answer.code).toBe('store_unavailable');
      }
    }
    for (const server of instances) expect(server.logs().filter((line) => (line.level ?? 0) >= 60)).toEqual([]);
  }, 300_000);
});
