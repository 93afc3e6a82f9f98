import { createHash } from 'node:crypto';

/** Client keys are spread over this many groups of keys (hash tags), each with its own share of the caps. */
export const DEFAULT_ATTEMPT_SHARDS = 16;
/** The global failure budget is spread over this many keys, so no one key takes every instance's writes. */
export const BUDGET_SHARDS = 4;

/**
 * The names of every key and channel the store uses, all under one prefix so several deployments can share a Redis.
 * Keys a script touches together share a hash tag (`{…}`), so that on Redis Cluster they live on one slot and each
 * script runs on one node: a client key's records, its indexes and its login are in its shard's tag; tickets and the
 * instance registry have one tag each; the record, the retired tokens and each budget shard are keys of their own.
 */
export class KeySpace {
  readonly record: string;
  readonly recordChanged: string;
  readonly retiredTokens: string;
  readonly ticketPrefix: string;
  readonly ticketIndex: string;
  readonly sessionTicketsPrefix: string;
  readonly ticketSequence: string;
  readonly instances: string;
  readonly instanceStarts: string;
  /** The keys of the layout before hash tags (kept only to carry their state over once, see legacy-layout.ts). */
  readonly legacy: { attemptPrefix: string; attemptIndex: string; recentSuccesses: string; globalFailures: string };
  // Named once: a login asks for its shard's keys at every step.
  private readonly shards: readonly AttemptShardKeys[];
  private readonly budgetShards: readonly string[];

  constructor(
    readonly prefix: string,
    readonly attemptShards: number = DEFAULT_ATTEMPT_SHARDS,
  ) {
    this.record = `${prefix}record`;
    this.recordChanged = `${prefix}record-changed`;
    this.retiredTokens = `${prefix}retired-tokens`;
    this.ticketPrefix = `${prefix}{tickets}ticket:`;
    this.ticketIndex = `${prefix}{tickets}all`;
    this.sessionTicketsPrefix = `${prefix}{tickets}session:`;
    this.ticketSequence = `${prefix}{tickets}sequence`;
    this.instances = `${prefix}{instances}beats`;
    this.instanceStarts = `${prefix}{instances}started`;
    this.legacy = {
      attemptPrefix: `${prefix}attempt:`,
      attemptIndex: `${prefix}attempts`,
      recentSuccesses: `${prefix}recent-successes`,
      globalFailures: `${prefix}global-failures`,
    };
    this.shards = Array.from({ length: attemptShards }, (_, shard) => shardKeys(prefix, shard));
    this.budgetShards = Array.from({ length: BUDGET_SHARDS }, (_, shard) => `${prefix}{budget:${shard}}failures`);
  }

  /** The keys of the shard that holds `clientKey`: see AttemptShardKeys. */
  attemptsOf(clientKey: string): AttemptShardKeys {
    return this.shards[shardOf(clientKey, this.attemptShards)] as AttemptShardKeys;
  }

  /** Every attempt shard, for the listings. */
  allAttemptShards(): readonly AttemptShardKeys[] {
    return this.shards;
  }

  budgetShard(shard: number): string {
    return this.budgetShards[shard] as string;
  }

  allBudgetShards(): readonly string[] {
    return this.budgetShards;
  }

  ticket(ticket: string): string {
    return `${this.ticketPrefix}${ticket}`;
  }

  /** A session token is the access token itself: its index is named by its SHA-256, never by the token. */
  sessionTickets(sessionToken: string): string {
    return `${this.sessionTicketsPrefix}${sessionTokenHash(sessionToken)}`;
  }
}

/**
 * One shard of the attempt state, all under one hash tag: `record:<client key>` (JSON, TTL) for each client key, and three
 * sorted sets of client keys: `counting` (failures under the threshold, score = when they leave the window; the only capped
 * one), `banned` (running bans, score = their end; no cap touches them) and `logins` (recent logins, score = until; capped).
 */
export interface AttemptShardKeys {
  recordPrefix: string;
  counting: string;
  banned: string;
  logins: string;
}

function shardKeys(prefix: string, shard: number): AttemptShardKeys {
  const tag = `${prefix}{attempts:${shard}}`;
  return { recordPrefix: `${tag}record:`, counting: `${tag}counting`, banned: `${tag}banned`, logins: `${tag}logins` };
}

/** The shard of a client key: FNV-1a of its UTF-16 code units, the same in every instance and every runtime. */
export function shardOf(clientKey: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < clientKey.length; i++) {
    hash ^= clientKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

export function sessionTokenHash(sessionToken: string): string {
  return createHash('sha256').update(sessionToken).digest('hex');
}
