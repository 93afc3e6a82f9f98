export { RedisStore, DEFAULT_REDIS_PREFIX, type RedisStoreLimits, type RedisStoreOptions } from './redis-store.js';
export type { RedisStoreEvent } from './redis-store-event.js';
export { INSTANCE_LIVENESS_MS, type RunningInstance } from './instance-registry.js';
export { parseRedisUrl, redactStoreUrl, type RedisUrl } from './connection/redis-url.js';
