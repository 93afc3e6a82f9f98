import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisConformanceCases } from './testing/redis-conformance-cases.js';
import { startRedisServer, type RedisServerHandle } from './testing/redis-server.js';

let redis: RedisServerHandle;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

describe('RedisStore conformance', () => {
  for (const c of redisConformanceCases(() => redis.url)) it(c.name, c.run);
});
