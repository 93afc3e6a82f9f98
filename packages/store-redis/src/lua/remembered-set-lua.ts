import { KEEP_AT_LEAST_LUA } from '../keys/expiry-ttl.js';

// Lua: remember(set, member, until, now, cap, ttl) on a sorted set (score = until). Past the cap, the entries nearest
// their end go first (with one lifetime for all, the least recently remembered), never the one just remembered. Only a new
// member can pass the cap, so only then are the ended entries dropped and the set trimmed: renewing a member is its ZADD and
// its TTL (readers judge an entry by its score, so an ended one left in meanwhile is never taken for a live one).
export const REMEMBER_LUA = `${KEEP_AT_LEAST_LUA}
local function remember(set, member, until_, now, cap, ttl)
  if redis.call('ZADD', set, until_, member) == 1 and redis.call('ZCARD', set) > tonumber(cap) then
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
    local over = redis.call('ZCARD', set) - tonumber(cap)
    if over > 0 then
      for _, old in ipairs(redis.call('ZRANGE', set, 0, over)) do
        if over > 0 and old ~= member then
          redis.call('ZREM', set, old)
          over = over - 1
        end
      end
    end
  end
  keep_at_least(set, ttl)
end
`;
