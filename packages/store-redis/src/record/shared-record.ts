import { copyTokenRecord, RecordChangeListeners, errorMessage } from '@webui/core/adapter';
import type { Awaitable, RecordChangeListener, RecordChangeOrigin, RecordStore, RecordSwap, TokenRecord } from '@webui/core/adapter';
import { canonicalRecordJson, decodeRecordJson, recordSpellings } from './canonical-record.js';
import type { KeySpace } from '../keys/key-space.js';
import { LuaScript } from '../lua/lua-script.js';
import type { RedisStoreEvent } from '../redis-store-event.js';
import type { StoreConnection } from '../connection/store-connection.js';

// KEYS[1] the record hash {json, revision}. ARGV: instance id, channel, next JSON, the caller's revision, then every
// spelling of the expected record (none: no record expected). Replies {1, revision} or {0, current JSON or '', revision}.
const SWAP_RECORD = new LuaScript(`
local stored = redis.call('HGET', KEYS[1], 'json')
local revision = tonumber(redis.call('HGET', KEYS[1], 'revision') or '0')
local matches = false
if #ARGV == 4 then
  matches = not stored
elseif stored then
  for i = 5, #ARGV do
    if stored == ARGV[i] then matches = true end
  end
end
if not matches then return {0, stored or '', revision} end
-- Never below what the writer knew: a Redis restarted empty must not start the revisions over.
revision = math.max(revision, tonumber(ARGV[4])) + 1
redis.call('HSET', KEYS[1], 'json', ARGV[3], 'revision', revision)
redis.call('PUBLISH', ARGV[2], revision .. '\\n' .. ARGV[1] .. '\\n' .. ARGV[3])
return {1, revision}
`);

type SwapReply = { swapped: true; revision: number } | { swapped: false; current: TokenRecord | null; revision: number };

/**
 * The durable record shared through Redis: served from the last known copy (no round trip per request; while Redis is
 * down the admission read fails before any credential is compared with it), written by compare-and-set, and kept current
 * by revision from the other instances' announcements. The copy only ever moves forward: an older revision never replaces a newer one.
 */
export class SharedRecord implements RecordStore {
  private record: TokenRecord | null = null;
  private revision = 0;
  private readonly listeners = new RecordChangeListeners();

  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly instanceId: string,
    private readonly emit: (event: RedisStoreEvent) => void,
  ) {}

  /** At once, from the last known copy (the port's Awaitable): no promise on a request's login check. */
  readRecord(): Awaitable<TokenRecord | null> {
    return this.record ? copyTokenRecord(this.record) : null;
  }

  onRecordChanged(listener: RecordChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async swapRecord(expected: TokenRecord | null, next: TokenRecord): Promise<RecordSwap> {
    const written = copyTokenRecord(next);
    let reply = await this.swapInRedis(expected, written);
    if (!reply.swapped && reply.current === null && this.record !== null) {
      // The port never deletes the record: Redis without one lost it, so it gets ours back before the change runs.
      await this.restore();
      reply = await this.swapInRedis(expected, written);
    }
    if (reply.swapped) {
      this.adopt(written, reply.revision, 'this_process');
      return { swapped: true };
    }
    if (reply.current !== null) this.adopt(reply.current, reply.revision, 'another_instance');
    // Still none after a restore: answer our copy, so a caller never takes a lost record for a first start.
    const current = reply.current ?? this.record;
    return { swapped: false, current: current ? copyTokenRecord(current) : null };
  }

  /**
   * Reads the record from Redis and adopts it when it is not older; writes ours back when Redis has none. Throws on a record that is not
   * one.
   */
  async sync(): Promise<void> {
    const [json, revision] = await this.connection.send((client) => client.hmget(this.keys.record, 'json', 'revision'));
    if (json === null || json === undefined) return this.restore();
    this.adopt(this.decode(json), Number(revision ?? 0), 'another_instance');
  }

  /** A change announced on the channel: `revision \n instance id \n JSON`. Our own are ignored: our reply already told us. */
  hear(message: string): void {
    const [revisionText, instanceId, ...rest] = message.split('\n');
    if (instanceId === this.instanceId) return;
    const revision = Number(revisionText);
    try {
      if (!Number.isSafeInteger(revision) || instanceId === undefined) throw new Error('the change announcement is malformed');
      this.adopt(this.decode(rest.join('\n')), revision, 'another_instance');
    } catch (error) {
      this.emit({ kind: 'record-refused', address: this.connection.address, reason: errorMessage(error) });
    }
  }

  private async restore(): Promise<void> {
    const record = this.record;
    if (record === null) return;
    const reply = await this.swapInRedis(null, record);
    if (reply.swapped) {
      this.adopt(record, reply.revision, 'this_process');
      this.emit({ kind: 'record-restored', address: this.connection.address });
    } else if (reply.current !== null) {
      this.adopt(reply.current, reply.revision, 'another_instance');
    }
  }

  private async swapInRedis(expected: TokenRecord | null, next: TokenRecord): Promise<SwapReply> {
    const spellings = expected === null ? [] : recordSpellings(expected);
    const args = [this.instanceId, this.keys.recordChanged, canonicalRecordJson(next), this.revision, ...spellings];
    const reply = await this.connection.run(SWAP_RECORD, [this.keys.record], args);
    if (!Array.isArray(reply)) throw new Error(`unexpected reply to the record swap: ${String(reply)}`);
    const [swapped, second, third] = reply as unknown[];
    if (swapped === 1) return { swapped: true, revision: Number(second) };
    const current = typeof second === 'string' && second !== '' ? this.decode(second) : null;
    return { swapped: false, current, revision: Number(third) };
  }

  /** Equal revisions hold equal records unless Redis lost its data; then Redis, the one copy all instances share, wins. */
  private adopt(record: TokenRecord, revision: number, origin: RecordChangeOrigin): void {
    if (revision < this.revision) return;
    const previous = this.record;
    this.record = record;
    this.revision = revision;
    this.listeners.notify(record, previous, (error) => this.emit({ kind: 'listener-failed', reason: errorMessage(error) }), origin);
  }

  private decode(json: string): TokenRecord {
    try {
      return decodeRecordJson(json);
    } catch (error) {
      throw new Error(`${this.keys.record} in Redis at ${this.connection.address}: ${errorMessage(error)}`);
    }
  }
}
