// Logical expiry is always decided against the clock; Redis's TTL only forgets, so a second of slack
// keeps a slow round trip or an instance whose clock runs a little behind from losing a live entry.
const TTL_SLACK_MS = 1_000;

/** The PEXPIRE, in ms, of an entry that expires at `until` as the clock reads `now`. */
export function expiryTtl(until: number, now: number): number {
  return Math.max(1, Math.ceil(until - now)) + TTL_SLACK_MS;
}

/** Lua: lengthens a key's TTL to at least `ttl` ms, so an index or set outlives every entry it holds and is forgotten after the last. */
export const KEEP_AT_LEAST_LUA = `
local function keep_at_least(key, ttl)
  if redis.call('PTTL', key) < tonumber(ttl) then redis.call('PEXPIRE', key, ttl) end
end
`;
