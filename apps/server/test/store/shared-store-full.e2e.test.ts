import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';

// A Redis that runs out of memory: under noeviction it refuses writes, and the server fails closed as when Redis is down.
let redis: RedisServerHandle;
let raw: Redis;
let server: ServerProcess;

beforeAll(async () => {
  redis = await startRedisServer({ config: { 'maxmemory-policy': 'allkeys-lru' } });
  raw = new Redis(redis.url);
  server = await startServer({ config: `[webui]\nstore_prefix = "full-${randomUUID()}:"\n`, env: { WEBUI_STORE: redis.url } });
}, 60_000);

afterAll(async () => {
  raw?.disconnect();
  await cleanupServers();
  await redis?.stop();
});

const token = (): string => String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);

describe('a shared store that runs out of memory', () => {
  it('a Redis that may evict keys is named at startup with the policy to set', () => {
    const warning = server.logs().find((line) => line.msg?.startsWith('the shared store may evict keys when full') === true);
    expect(warning?.['masters']).toEqual([`127.0.0.1:${redis.port} allkeys-lru`]);
  });

  it('full under noeviction: logins and guesses answer 503 store_unavailable, never 500; room again: served without a restart', async () => {
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.41' });
    await raw.config('SET', 'maxmemory-policy', 'noeviction');
    const used = Number(/^used_memory:(\d+)/m.exec(await raw.info('memory'))?.[1]);
    await raw.config('SET', 'maxmemory', String(used + 512 * 1024));
    try {
      for (let i = 0; ; i++) {
        const full = await raw.set(`filler:${i}`, 'x'.repeat(64 * 1024)).then(
          () => false,
          (error: Error) => error.message.startsWith('OOM'),
        );
        if (full) break;
      }
      // A refused SET frees its own 64 KiB argument, which can leave room for the server's small writes: the limit
      // goes a quarter MiB below what is used now, so every write is refused until it is lifted.
      const filled = Number(/^used_memory:(\d+)/m.exec(await raw.info('memory'))?.[1]);
      await raw.config('SET', 'maxmemory', String(filled - 256 * 1024));
      for (const body of [{ token: 'a-wrong-guess' }, { token: token() }]) {
        const res = await client.post('/auth/verify', { body });
        expectErrorBody(res, 503, 'store_unavailable');
        expect(res.headers['retry-after']).toBe('5');
      }
      expect((await client.get('/health')).status).toBe(503);
    } finally {
      await raw.config('SET', 'maxmemory', '0');
    }
    expect((await client.post('/auth/verify', { body: { token: token() } })).status).toBe(200);
    expect((await client.get('/health')).status).toBe(200);
    expect(server.logs().filter((line) => (line.level ?? 0) >= 60)).toEqual([]);
  });
});
