export { startRedisServer, type RedisServerHandle } from './redis-server.js';
