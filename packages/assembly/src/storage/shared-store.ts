import type { Clock } from '@webui/core';
import { readRecordFile } from '@webui/store-json';
import { RedisStore, type RedisStoreEvent } from '@webui/store-redis';
import type { Logger } from 'pino';
import type { DirectoryStore } from './directory-store.js';

export interface SharedStoreOptions {
  /** The redis://, rediss://, redis-cluster:// or rediss-cluster:// URL of `[webui] store`. */
  url: string;
  /** `[webui] store_prefix`. */
  prefix: string;
  /** Its webui.json is imported into an empty Redis, once. */
  dataDir: string;
  clock: Clock;
  logger: Logger;
}

/**
 * The state in Redis, shared by every instance configured with the same URL and prefix. Opening it
 * connects (an unreachable Redis stops the start with one line naming the address, never the password)
 * and, when Redis holds no record yet, imports the data directory's webui.json once; a record already
 * in Redis is never overwritten.
 */
export function sharedStore(options: SharedStoreOptions): DirectoryStore {
  const logger = options.logger.child({ module: 'store' });
  const redis = new RedisStore({
    url: options.url,
    prefix: options.prefix,
    clock: options.clock,
    onEvent: (event) => logRedisEvent(logger, event),
  });
  return {
    store: redis,
    where: `${redis.address} (prefix ${JSON.stringify(options.prefix)})`,
    tokenPlace: 'it is kept in the shared store',
    async open() {
      await redis.open();
      try {
        await importRecordFileOnce(redis, options.dataDir, logger);
      } catch (error) {
        await redis.close();
        throw error;
      }
    },
    close: () => redis.close(),
    // Redis forgets attempts and tickets by their TTLs: nothing to sweep, nothing to watch.
    sweep: () => undefined,
    watch: () => undefined,
    joinInstances: async () => (await redis.joinInstances(options.clock.now())).others.length,
    available: () => redis.available,
  };
}

async function importRecordFileOnce(redis: RedisStore, dataDir: string, logger: Logger): Promise<void> {
  const file = await readRecordFile(dataDir);
  if (file.kind === 'missing') return;
  if ((await redis.record.readRecord()) !== null) {
    logger.debug({ file: file.kind === 'read' ? file.path : null }, 'the shared store already holds a record; webui.json is not read');
    return;
  }
  // Never a fresh temporary token in place of the operator's: a broken file stops the start, nothing changed.
  if (file.kind === 'invalid')
    throw new Error(
      `${file.path} cannot be imported into the shared store: ${file.reason}; fix it, or move it aside to start with a new temporary token`,
    );
  const swap = await redis.record.swapRecord(null, file.record);
  if (swap.swapped)
    logger.info(
      { from: file.path, to: redis.address },
      'imported webui.json into the shared store (once; the file is left as it was and no longer read)',
    );
}

function logRedisEvent(logger: Logger, event: RedisStoreEvent): void {
  switch (event.kind) {
    case 'connection-lost':
      logger.error(
        { address: event.address, reason: event.reason },
        'the shared store is unreachable: logins and changes answer 503 until it is back',
      );
      return;
    case 'connection-restored':
      logger.info({ address: event.address }, 'the shared store is reachable again');
      return;
    case 'record-restored':
      logger.warn(
        { address: event.address },
        'the shared store came back without the token record; this instance wrote back the last one it knew',
      );
      return;
    case 'record-refused':
      logger.error(
        { address: event.address, reason: event.reason },
        'the shared store holds a record that is not valid; the last good one stays in force',
      );
      return;
    case 'listener-failed':
      logger.error({ reason: event.reason }, 'a listener of record changes failed; the change itself stands');
      return;
    case 'evicting-policy':
      logger.warn(
        { address: event.address, masters: event.masters },
        'the shared store may evict keys when full (a running ban among them): run Redis with maxmemory-policy noeviction',
      );
      return;
    case 'layout-upgraded':
      logger.info(
        { address: event.address, carried: event.carried },
        'carried the bans and failure counts of the old key layout into the current one, and deleted the old keys',
      );
      return;
  }
}
