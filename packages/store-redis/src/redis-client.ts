import type { Redis } from 'ioredis';
import type { RedisUrl } from './redis-url.js';

// Longer than any script takes; a Redis that stops answering (not just closing) fails the call instead of hanging it.
const COMMAND_TIMEOUT_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * One connection to Redis that fails closed (DESIGN D16): no queue of commands while disconnected and no
 * retry of one in flight, so a call rejects at once when Redis is gone; reconnects forever, so nothing needs a restart.
 * Connects only when told to (`connect()`), once its owner listens to its events. ioredis is loaded
 * here, on first use: a server on the JSON file never pays for it (about 15 MB of memory).
 */
export async function createRedisClient(url: RedisUrl, connectTimeoutMs: number): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis({
    host: url.host,
    port: url.port,
    db: url.db,
    username: url.username,
    password: url.password,
    tls: url.tls ? {} : undefined,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 200, MAX_RECONNECT_DELAY_MS),
    connectTimeout: connectTimeoutMs,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // The store subscribes again itself on every 'ready', then re-reads the record, in that order.
    autoResubscribe: false,
  });
}

/** Whether every client reaches 'ready' within `timeoutMs`. */
export function allReadyWithin(clients: readonly Redis[], timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let waiting = clients.length;
    const timer = setTimeout(() => resolve(false), timeoutMs);
    for (const client of clients) {
      const onReady = (): void => {
        waiting -= 1;
        if (waiting > 0) return;
        clearTimeout(timer);
        resolve(true);
      };
      if (client.status === 'ready') onReady();
      else client.once('ready', onReady);
    }
  });
}
