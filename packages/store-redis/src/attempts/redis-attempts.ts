import type { Clock } from '@webui/core';
import type { AttemptEntry, AttemptRecord, AttemptStore, ClientState, FailureTally, FailureToCount } from '@webui/core/adapter';
import { AdmissionReads } from './admission-reads.js';
import { expiryTtl } from '../keys/expiry-ttl.js';
import type { KeySpace } from '../keys/key-space.js';
import { COUNT_FAILURE, DELETE_ATTEMPTS, LIST_ATTEMPTS, READ_ATTEMPTS, READ_CLIENT, RECORD_LOGIN } from './redis-attempt-scripts.js';
import type { StoreConnection } from '../connection/store-connection.js';

/** Failed verifications, bans and recent logins per client key; each call one script, so instances sharing Redis never lose a failure. */
export class RedisAttempts implements AttemptStore {
  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
    private readonly limits: { maxAttemptKeys: number; maxRecentSuccesses: number },
  ) {
    // Each shard holds its share of the caps: together never more than the caps, rounded up to at least one each.
    this.countingCap = Math.ceil(limits.maxAttemptKeys / keys.attemptShards);
    this.loginCap = Math.ceil(limits.maxRecentSuccesses / keys.attemptShards);
  }

  private readonly countingCap: number;
  private readonly loginCap: number;

  // Admissions of one client key at once share one read (admission-reads.ts).
  private readonly reads = new AdmissionReads();

  async countFailure(key: string, failure: FailureToCount): Promise<FailureTally> {
    this.reads.forget(key);
    const now = this.clock.now();
    const args = [
      key,
      failure.at,
      failure.cookie === undefined ? '0' : '1',
      failure.cookie ?? '',
      failure.windowStart,
      failure.threshold,
      failure.banUntil,
      failure.keepUntil,
      expiryTtl(failure.banUntil, now),
      expiryTtl(failure.keepUntil, now),
      this.countingCap,
      now,
    ];
    return decodeTally(await this.connection.run(COUNT_FAILURE, this.clientKeys(key).slice(0, 3), args));
  }

  async recordLogin(key: string, now: number, rememberUntil?: number): Promise<void> {
    const clockNow = this.clock.now();
    const remember = rememberUntil === undefined ? ['0', 0, 0, 0] : ['1', rememberUntil, this.loginCap, expiryTtl(rememberUntil, clockNow)];
    await this.connection.run(RECORD_LOGIN, this.clientKeys(key), [key, now, ...remember, clockNow]);
  }

  readClient(key: string): Promise<ClientState> {
    return this.reads.join(key, () => this.readOnce(key));
  }

  async readAttempts(key: string): Promise<AttemptRecord | null> {
    const stored = await this.connection.run(READ_ATTEMPTS, this.clientKeys(key).slice(0, 3), [key, this.clock.now()]);
    return typeof stored === 'string' ? decodeAttemptRecord(stored) : null;
  }

  async deleteAttempts(key: string): Promise<void> {
    this.reads.forget(key);
    await this.connection.run(DELETE_ATTEMPTS, this.clientKeys(key).slice(0, 3), [key]);
  }

  /** One script per shard, all at once: on a cluster each goes to the node of its shard. */
  async listAttempts(): Promise<AttemptEntry[]> {
    const now = this.clock.now();
    const shards = await Promise.all(
      this.keys
        .allAttemptShards()
        .map((shard) => this.connection.run(LIST_ATTEMPTS, [shard.counting, shard.banned], [now, shard.recordPrefix])),
    );
    const entries: AttemptEntry[] = [];
    for (const listed of shards) {
      if (!Array.isArray(listed)) throw new Error(`unexpected reply to the attempt listing: ${String(listed)}`);
      for (let i = 0; i + 1 < listed.length; i += 2)
        entries.push({ key: String(listed[i]), record: decodeAttemptRecord(String(listed[i + 1])) });
    }
    return entries;
  }

  /** The admission read: ban state, recent login and whether the counts are full, in one script. */
  private async readOnce(key: string): Promise<ClientState> {
    const now = this.clock.now();
    const reply = await this.connection.run(READ_CLIENT, this.clientKeys(key), [key, now, this.countingCap]);
    if (!Array.isArray(reply)) throw new Error(`unexpected reply to the client read: ${JSON.stringify(reply)}`);
    const [stored, loginUntil, fullUntil] = reply as unknown[];
    const state: ClientState = {
      attempts: typeof stored === 'string' ? decodeAttemptRecord(stored) : null,
      loggedInRecently: Number(loginUntil) > now,
    };
    if (Number(fullUntil) > now) state.countsFullUntil = Number(fullUntil);
    return state;
  }

  /** record, counting, banned, logins: the keys of the client key's shard, in the order every script takes them. */
  private clientKeys(key: string): string[] {
    const shard = this.keys.attemptsOf(key);
    return [`${shard.recordPrefix}${key}`, shard.counting, shard.banned, shard.logins];
  }
}

function decodeTally(reply: unknown): FailureTally {
  if (Array.isArray(reply)) {
    const [kind, value] = reply as unknown[];
    const number = Number(value);
    if (kind === 'already_banned') return { kind, bannedUntil: number };
    if (kind === 'banned') return { kind, bannedUntil: number };
    if (kind === 'repeated') return { kind, failures: number };
    if (kind === 'counted') return { kind, failures: number };
    if (kind === 'full') return { kind };
  }
  throw new Error(`unexpected reply to a counted failure: ${JSON.stringify(reply)}`);
}

/** The stored JSON of an attempt record, as the scripts write it. */
function decodeAttemptRecord(text: string): AttemptRecord {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`an attempt record in Redis is not a JSON object: ${text}`);
  const { failures, bannedUntil, lastFailureAt } = value as Record<string, unknown>;
  const record: AttemptRecord = { failures: Array.isArray(failures) ? failures.map(decodeFailure) : [] };
  if (typeof bannedUntil === 'number') record.bannedUntil = bannedUntil;
  if (typeof lastFailureAt === 'number') record.lastFailureAt = lastFailureAt;
  return record;
}

function decodeFailure(value: unknown): { at: number; cookie?: string } {
  const { at, cookie } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof at !== 'number') throw new Error(`a failure in an attempt record in Redis has no time: ${JSON.stringify(value)}`);
  return typeof cookie === 'string' ? { at, cookie } : { at };
}
