import type { Redis } from 'ioredis';

/**
 * How long after it was sent a script may still act: half the 2 s command timeout (../connection/redis-client.ts), so the answer of one that
 * acted has the other half to come back before the caller gives up and answers 503.
 */
export const SCRIPT_DEADLINE_MS = 1_000;

/**
 * Lua that every script starts with: it takes its deadline off the end of ARGV (so the script's own ARGV is as it was) and does
 * nothing past it, judged on Redis's own clock. A script that waited in a frozen Redis for its caller to give up never acts.
 */
export const DEADLINE_GUARD_LUA = `
local script_deadline_ms = tonumber(table.remove(ARGV))
local redis_time = redis.call('TIME')
if tonumber(redis_time[1]) * 1000 + math.floor(tonumber(redis_time[2]) / 1000) > script_deadline_ms then
  return redis.error_reply('LATE the script reached Redis after its deadline, so it did nothing')
end
`;

/**
 * The deadline a script carries, in Redis's milliseconds: this process's monotonic clock plus the offset to Redis's clock,
 * learned from a TIME round trip to each node (the lowest offset it can be, so a deadline falls early rather than late), and on
 * a cluster the lowest of the nodes' (the clock furthest behind), so that on every node a script acts only within
 * SCRIPT_DEADLINE_MS of being sent.
 */
export class ScriptDeadline {
  private readonly offsets = new Map<string, number>();
  private offset: number | null = null;

  /** The deadline of a script sent now; null until a node's clock was read (RedisStore reads them before any script runs). */
  now(): number | null {
    return this.offset === null ? null : Math.floor(performance.now() + this.offset) + SCRIPT_DEADLINE_MS;
  }

  /** Reads the clock of each node; a node that does not answer keeps what was learned of it before. True when any answered. */
  async learn(nodes: readonly Redis[]): Promise<boolean> {
    const read = await Promise.allSettled(
      nodes.map(async (node) => {
        const [seconds, micros] = await node.time();
        // Redis read its clock before the answer came back: its offset is at least this.
        const offset = Number(seconds) * 1000 + Number(micros) / 1000 - performance.now();
        this.offsets.set(`${node.options.host}:${node.options.port}`, offset);
      }),
    );
    if (this.offsets.size > 0) this.offset = Math.min(...this.offsets.values());
    return read.some((result) => result.status === 'fulfilled');
  }
}
