import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, freePort, startServer, type ServerProcess } from '../harness/processes/server-process.js';

let redis: RedisServerHandle;
let server: ServerProcess;
let scraper: HttpClient;

beforeAll(async () => {
  redis = await startRedisServer();
  const metricsPort = await freePort();
  server = await startServer({
    config: `[webui]\nmetrics_port = ${metricsPort}\nstore_prefix = "webui-metrics-${process.pid}-${Date.now()}:"\n`,
    env: { WEBUI_STORE: redis.url },
  });
  scraper = new HttpClient(`http://127.0.0.1:${metricsPort}`, { prefix: '' });
}, 60_000);

afterAll(async () => {
  await cleanupServers();
  await redis?.stop();
});

/** The value of one series in a Prometheus text answer, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrape = async () => (await scraper.get('/metrics')).text;

describe('metrics over a shared store (Redis)', () => {
  it('times every store operation, and shows Redis lost and back on the metrics port (the API answers 503 meanwhile)', async () => {
    const client = new HttpClient(server.baseUrl);
    await client.post('/auth/verify', { body: { token: 'not-the-token' } });
    const before = await scrape();
    expect(sample(before, 'webui_store_available')).toBe(1);
    expect(sample(before, 'webui_store_operation_seconds_count{operation="countFailure"}')).toBe(1);
    expect(sample(before, 'webui_store_operation_seconds_count{operation="readClient"}')).toBeGreaterThanOrEqual(1);
    // The record is read from the instance's last known copy, not from Redis: not a store operation to time.
    expect(before).not.toContain('operation="readRecord"');
    expect(before).not.toContain(redis.url);

    const operator = new HttpClient(server.baseUrl);
    const token = server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token'];
    expect((await operator.post('/auth/verify', { body: { token } })).status).toBe(200);
    await redis.kill();
    try {
      // A login needs Redis: refused with a 503, and the failure is counted by operation.
      expect((await client.post('/auth/verify', { body: { token: 'not-the-token' } })).status).toBe(503);
      const lost = await scrape();
      // Through the API a session's credential is not checked while Redis cannot count a failure: 503, as for a wrong one.
      const throughApi = await operator.get('/metrics');
      expect(throughApi.status).toBe(503);
      expect(throughApi.json?.['code']).toBe('store_unavailable');
      expect(sample(lost, 'webui_store_available')).toBe(0);
      const failures = lost.split('\n').filter((line) => line.startsWith('webui_store_operation_failures_total{'));
      expect(failures.reduce((total, line) => total + Number(line.split(' ')[1]), 0)).toBeGreaterThanOrEqual(1);
      // Bans and the budget live in Redis: unknown (NaN) in this scrape rather than shown stale.
      expect(sample(lost, 'webui_bans_active')).toBeNaN();
      expect(lost).not.toContain('webui_global_failure_budget_state{');
    } finally {
      await redis.restart();
    }
    // The instance reconnects by itself: polled until it says so.
    await expect.poll(async () => sample(await scrape(), 'webui_store_available'), { timeout: 15_000, interval: 50 }).toBe(1);
  });
});
