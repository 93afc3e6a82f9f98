// Logical expiry is always decided against the clock; Redis's TTL only forgets, so a second of slack
// keeps a slow round trip or an instance whose clock runs a little behind from losing a live entry.
const TTL_SLACK_MS = 1_000;

/** The PEXPIRE, in ms, of an entry that expires at `until` as the clock reads `now`. */
export function expiryTtl(until: number, now: number): number {
  return Math.max(1, Math.ceil(until - now)) + TTL_SLACK_MS;
}

/**
 * Lua: lengthens a key's TTL to at least `ttl` ms, so an index or set outlives every entry it holds and is forgotten after the last.
 * One call when the TTL grows, as it does at every login and retirement (GT); a key without a TTL yet gets one (NX). Redis 7.0.
 */
export const KEEP_AT_LEAST_LUA = `
local function keep_at_least(key, ttl)
  if redis.call('PEXPIRE', key, ttl, 'GT') == 0 then redis.call('PEXPIRE', key, ttl, 'NX') end
end
`;
