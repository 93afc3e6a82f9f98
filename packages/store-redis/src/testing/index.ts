export { startRedisServer, type RedisServerHandle } from './redis-server.js';
export { freePort } from './free-port.js';
export { startRedisCluster, type RedisClusterHandle } from './redis-cluster.js';
export { attemptShardKey } from './attempt-shard-key.js';
export { floodKeepsBans } from './flood.js';
