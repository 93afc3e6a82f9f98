import type { Cluster, Redis } from 'ioredis';
import type { RedisUrl } from './redis-url.js';

/** A connection to a standalone Redis, or to a Redis Cluster (every master, found from the seed nodes). */
export type RedisClient = Redis | Cluster;

// Longer than any script takes; a Redis that stops answering (not just closing) fails the call instead of hanging it.
const COMMAND_TIMEOUT_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 2_000;
// ioredis asks a cluster for its slots again this often: without it, a client kept sending to a frozen master for as long as
// the failover took and more (9 s measured); with it, it follows a promoted replica within a few seconds.
const SLOTS_REFRESH_INTERVAL_MS = 1_000;

/**
 * One connection to Redis that fails closed (docs/decisions/0016-shared-store-fails-closed.md): no queue of commands while disconnected and no
 * retry of one in flight, so a call rejects at once when Redis is gone; reconnects forever, so nothing needs a restart.
 * Connects only when told to (`connect()`), once its owner listens to its events. ioredis is loaded
 * here, on first use: a server on the JSON file never pays for it (about 15 MB of memory).
 * A cluster URL gives an ioredis Cluster with the same rules for each node, following MOVED and a promoted replica.
 */
export async function createRedisClient(url: RedisUrl, connectTimeoutMs: number): Promise<RedisClient> {
  const { Redis, Cluster } = await import('ioredis');
  const nodeOptions = {
    username: url.username,
    password: url.password,
    tls: url.tls ? {} : undefined,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: connectTimeoutMs,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // The store subscribes again itself on every 'ready', then re-reads the record, in that order.
    autoResubscribe: false,
  };
  if (url.nodes !== undefined) {
    return new Cluster(url.nodes, {
      lazyConnect: true,
      enableOfflineQueue: false,
      // Writes and reads go to masters only: a replica may lag behind a count just made.
      scaleReads: 'master',
      slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
      slotsRefreshTimeout: Math.min(connectTimeoutMs, COMMAND_TIMEOUT_MS),
      clusterRetryStrategy: (times) => Math.min(times * 200, MAX_RECONNECT_DELAY_MS),
      redisOptions: nodeOptions,
    });
  }
  return new Redis({
    host: url.host,
    port: url.port,
    db: url.db,
    lazyConnect: true,
    retryStrategy: (times) => Math.min(times * 200, MAX_RECONNECT_DELAY_MS),
    ...nodeOptions,
  });
}

/** The connection to each node: on a cluster every one of `role` (all: replicas too, whose clock counts once promoted), else the one. */
export function nodesOf(client: RedisClient, role: 'all' | 'master' = 'all'): Redis[] {
  return client.isCluster ? (client as Cluster).nodes(role) : [client as Redis];
}

/** Whether every client reaches 'ready' within `timeoutMs`. */
export function allReadyWithin(clients: readonly RedisClient[], timeoutMs: number): Promise<boolean> {
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
