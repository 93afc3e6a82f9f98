import { StoreUnavailableError, type Clock, type Store } from '@webui/core';
import { DEFAULT_MEMORY_STORE_LIMITS, type MemoryStoreLimits } from '@webui/core/memory';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { errorMessage } from '@webui/core/adapter';
import { evictingMasters } from './connection/eviction-policy.js';
import { InstanceRegistry, type RunningInstance } from './instance-registry.js';
import { KeySpace } from './keys/key-space.js';
import { carryLegacyLayout } from './keys/legacy-layout.js';
import { allReadyWithin, createRedisClient, nodesOf, type RedisClient } from './connection/redis-client.js';
import { RedisAttempts } from './attempts/redis-attempts.js';
import { RedisGlobalFailures } from './attempts/redis-global-failures.js';
import { RedisRetiredTokens } from './tokens/redis-retired-tokens.js';
import type { RedisStoreEvent } from './redis-store-event.js';
import { RedisTickets } from './tokens/redis-tickets.js';
import { parseRedisUrl, type RedisUrl } from './connection/redis-url.js';
import { SharedRecord } from './record/shared-record.js';
import { StoreConnection } from './connection/store-connection.js';

/** The caps of the short-lived state (docs/decisions/0014-bounded-memory.md), the same as MemoryStore's, held across every instance. */
export type RedisStoreLimits = MemoryStoreLimits;

export interface RedisStoreOptions {
  /** redis://[:password@]host[:port][/db], or rediss:// for TLS; redis-cluster://host:port,host:port,… (rediss-cluster://) for a Redis Cluster. */
  url: string;
  /** Every key and channel lives under it; default 'webui:'. */
  prefix?: string;
  /** Logical time for every expiry decision; Redis's TTLs only forget. */
  clock: Clock;
  limits?: Partial<RedisStoreLimits>;
  onEvent?: (event: RedisStoreEvent) => void;
  /** How long connect() waits for Redis; default 3000 ms. */
  connectTimeoutMs?: number;
  /**
   * Over how many hash tags the client keys are spread (default 16), each holding its share of maxAttemptKeys and
   * maxRecentSuccesses: part of the key layout, so every instance sharing a prefix must use the same (tests set 1 to see exact caps).
   */
  attemptShards?: number;
}

export const DEFAULT_REDIS_PREFIX = 'webui:';
const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
const SYNC_RETRY_MS = 1_000;
// On a cluster, the subscriber may move to another node (its node failed) and miss an announcement meanwhile: the record is
// also re-read this often, so a change is seen within it whatever happened to the subscription.
const CLUSTER_RECORD_RESYNC_MS = 5_000;

/**
 * The Store in Redis, shared by every instance of the server that names the same URL and prefix (docs/decisions/0016-shared-store-fails-closed.md):
 * one file per port, over one connection. Each atomic step is one Lua script; the durable record is also kept in memory and
 * answered from there (no round trip per request), while every other call fails closed with StoreUnavailableError when Redis
 * cannot answer, the admission read first, so no credential is checked meanwhile. Reconnects by itself; nothing needs a restart.
 */
export class RedisStore implements Store {
  /** The URL with its password replaced by `***`. */
  readonly address: string;
  /** This instance among those sharing the store. */
  readonly instanceId = randomUUID();
  private readonly url: RedisUrl;
  private readonly connection: StoreConnection;
  // Made by open(): ioredis is loaded only by a server that uses Redis.
  private client: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  private readonly keys: KeySpace;
  private readonly emit: (event: RedisStoreEvent) => void;
  readonly record: SharedRecord;
  readonly attempts: RedisAttempts;
  readonly budget: RedisGlobalFailures;
  readonly retiredTokens: RedisRetiredTokens;
  readonly tickets: RedisTickets;
  private readonly instances: InstanceRegistry;
  private readonly connectTimeoutMs: number;
  private readonly clock: Clock;
  private lastError: Error | null = null;
  private started = false;
  private closed = false;
  private commandsReady = false;
  private lost = false;
  private syncRetry: NodeJS.Timeout | null = null;
  private resync: NodeJS.Timeout | null = null;

  /** A connected store: new RedisStore(options) then open(). */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(options);
    await store.open();
    return store;
  }

  /** Connects nothing yet (see open()); throws when the URL is not a Redis or Redis Cluster one. */
  constructor(options: RedisStoreOptions) {
    const url = parseRedisUrl(options.url);
    if (!url.ok) throw new Error(`store: ${url.error}`);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.clock = options.clock;
    const limits = { ...DEFAULT_MEMORY_STORE_LIMITS, ...options.limits };
    this.address = url.value.address;
    this.keys = new KeySpace(options.prefix ?? DEFAULT_REDIS_PREFIX, options.attemptShards);
    this.emit = options.onEvent ?? (() => undefined);
    this.url = url.value;
    const connection = new StoreConnection(this.address);
    this.connection = connection;
    this.record = new SharedRecord(connection, this.keys, this.instanceId, this.emit);
    this.attempts = new RedisAttempts(connection, this.keys, options.clock, limits);
    this.budget = new RedisGlobalFailures(connection, this.keys, options.clock, url.value.nodes === undefined);
    this.retiredTokens = new RedisRetiredTokens(connection, this.keys.retiredTokens, options.clock, limits.maxRetiredTokens);
    this.tickets = new RedisTickets(connection, this.keys, options.clock, limits);
    this.instances = new InstanceRegistry(connection, this.keys, options.clock, this.instanceId);
  }

  /**
   * Connects (a command and a subscriber connection), subscribes to record changes and loads the record.
   * Throws StoreUnavailableError, one line naming the address but never the password, when Redis cannot
   * be reached within connectTimeoutMs; the store is closed then.
   */
  async open(): Promise<void> {
    try {
      await this.start(this.connectTimeoutMs);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Whether the command connection is up and the last call got through: when false, calls but readRecord fail with StoreUnavailableError.
   */
  get available(): boolean {
    return this.connection.answering;
  }

  /** Leaves the instance registry and closes both connections; calls made afterwards fail with StoreUnavailableError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.syncRetry !== null) clearTimeout(this.syncRetry);
    if (this.resync !== null) clearInterval(this.resync);
    await this.instances.leave();
    // A polite QUIT where the connection is up; disconnect() stops a reconnecting one (and is a no-op after QUIT).
    const clients = [this.client, this.subscriber].filter((client): client is RedisClient => client !== null);
    await Promise.allSettled(clients.filter((client) => client.status === 'ready').map((client) => client.quit()));
    for (const client of clients) client.disconnect();
  }

  /**
   * Registers this instance, answers the others whose heartbeat is younger than 15 s, and beats every
   * 5 s until close(): two instances starting together can tell whether they are alone.
   */
  joinInstances(startedAt: number): Promise<{ others: RunningInstance[] }> {
    return this.instances.join(startedAt);
  }

  private async start(timeoutMs: number): Promise<void> {
    const client = await createRedisClient(this.url, timeoutMs);
    const subscriber = await createRedisClient(this.url, timeoutMs);
    this.client = client;
    this.subscriber = subscriber;
    this.connection.attach(client);
    this.watchCommands(client);
    this.watchSubscriber(subscriber);
    const ready = allReadyWithin([client, subscriber], timeoutMs);
    // Failures surface as 'error' events (kept in lastError) while the clients keep retrying.
    client.connect().catch(() => undefined);
    subscriber.connect().catch(() => undefined);
    const unreachable = (reason: string, cause?: unknown) => this.unreachable(reason, cause);
    if (!(await ready)) throw unreachable(this.lastError?.message ?? `no answer within ${timeoutMs} ms`, this.lastError);
    // Before any script: each carries a deadline in Redis's clock (lua/script-deadline.ts).
    if (!(await this.connection.deadline.learn(nodesOf(client)))) throw unreachable('its clock could not be read (TIME)');
    try {
      await subscriber.subscribe(this.keys.recordChanged);
    } catch (error) {
      throw unreachable(errorMessage(error), error);
    }
    try {
      await this.record.sync();
    } catch (error) {
      // A record that is not one passes as it is: the operator must fix Redis, and the message says where.
      if (!(error instanceof StoreUnavailableError)) throw error;
      throw unreachable(errorMessage(error.reason ?? error), error);
    }
    await this.checkLayout(client);
    this.started = true;
    if (this.url.nodes !== undefined) {
      this.resync = setInterval(() => this.syncRecord(), CLUSTER_RECORD_RESYNC_MS);
      this.resync.unref();
    }
  }

  /** Warns of an evicting Redis, and carries an old key layout over (a standalone Redis only: a cluster never held one). */
  private async checkLayout(client: RedisClient): Promise<void> {
    const evicting = await evictingMasters(client);
    if (evicting.length > 0) this.emit({ kind: 'evicting-policy', address: this.address, masters: evicting });
    if (this.url.nodes !== undefined) return;
    try {
      const carried = await carryLegacyLayout(this.connection, this.keys, this.clock, this.keys.budgetShard(0));
      if (carried > 0) this.emit({ kind: 'layout-upgraded', address: this.address, carried });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      throw this.unreachable(errorMessage(error.reason ?? error), error);
    }
  }

  /** The start's failure to reach Redis, naming the address (with the password as ***) and why. */
  private unreachable(reason: string, cause?: unknown): StoreUnavailableError {
    return new StoreUnavailableError(`cannot reach Redis at ${this.address}: ${reason}`, { cause });
  }

  private watchCommands(client: RedisClient): void {
    client.on('error', (error: Error) => {
      this.lastError = error;
    });
    client.on('ready', () => {
      this.lastError = null;
      this.commandsReady = true;
      // Ready means Redis answered the ready check: /health says so at once, not only after the next call.
      this.connection.failing = false;
      if (this.lost) {
        this.lost = false;
        this.emit({ kind: 'connection-restored', address: this.address });
      }
      // Redis may have changed (or lost the record, or moved to a host with another clock) while we were away.
      if (this.started) {
        void this.connection.deadline.learn(nodesOf(client));
        this.syncRecord();
      }
    });
    // A node that joins the cluster's map (a promoted replica): its clock is read before long.
    client.on('+node', (node: Redis) => {
      if (this.started) void this.connection.deadline.learn([node]);
    });
    client.on('close', () => {
      if (!this.commandsReady || this.closed) return;
      this.commandsReady = false;
      this.lost = true;
      this.emit({ kind: 'connection-lost', address: this.address, reason: this.lastError?.message ?? 'the connection closed' });
    });
  }

  private watchSubscriber(subscriber: RedisClient): void {
    subscriber.on('error', (error: Error) => {
      this.lastError = error;
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.keys.recordChanged) this.record.hear(message);
    });
    subscriber.on('ready', () => {
      if (!this.started || this.closed) return;
      // Subscribed first, then read: a change made in between is announced, not missed.
      subscriber.subscribe(this.keys.recordChanged).then(
        () => this.syncRecord(),
        () => undefined, // The connection dropped again; its next 'ready' subscribes again.
      );
    });
  }

  /** Brings the record up to date from Redis in the background; tried again shortly while Redis cannot answer. */
  private syncRecord(): void {
    if (this.closed) return;
    this.record.sync().catch((error: unknown) => {
      if (this.closed) return;
      if (!(error instanceof StoreUnavailableError)) {
        this.emit({ kind: 'record-refused', address: this.address, reason: errorMessage(error) });
        return;
      }
      if (this.syncRetry !== null) return;
      this.syncRetry = setTimeout(() => {
        this.syncRetry = null;
        this.syncRecord();
      }, SYNC_RETRY_MS);
      this.syncRetry.unref();
    });
  }
}
