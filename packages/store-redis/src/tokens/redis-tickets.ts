import type { Clock } from '@webui/core';
import type { TicketGrant, TicketStore } from '@webui/core/adapter';
import { expiryTtl, KEEP_AT_LEAST_LUA } from '../keys/expiry-ttl.js';
import { sessionTokenHash, type KeySpace } from '../keys/key-space.js';
import { LuaScript } from '../lua/lua-script.js';
import type { StoreConnection } from '../connection/store-connection.js';

// A ticket is the hash <prefix>ticket:<ticket> {grant JSON, session hash} with a TTL, listed in the indexes
// <prefix>tickets and <prefix>session-tickets:<SHA-256 of the session token> (sorted sets, score = order of issue).
// KEYS: ticket, session index, overall index, sequence. ARGV: ticket, grant JSON, session hash, TTL,
// maxTicketsPerSession, maxTickets, ticket key prefix, session index prefix.
const PUT_TICKET = new LuaScript(`${KEEP_AT_LEAST_LUA}
local ticket_prefix, session_prefix, overall = ARGV[7], ARGV[8], KEYS[3]
local function drop(member, index)
  local key = ticket_prefix .. member
  local session = redis.call('HGET', key, 'session')
  redis.call('DEL', key)
  redis.call('ZREM', overall, member)
  if session then redis.call('ZREM', session_prefix .. session, member) end
  redis.call('ZREM', index, member)
end
local function make_room(index, max)
  if redis.call('ZCARD', index) < max then return end
  -- A ticket gone by its TTL leaves its index entry behind: those go before any live one.
  for _, member in ipairs(redis.call('ZRANGE', index, 0, 99)) do
    if redis.call('EXISTS', ticket_prefix .. member) == 0 then redis.call('ZREM', index, member) end
  end
  while redis.call('ZCARD', index) >= max and redis.call('ZCARD', index) > 0 do
    drop(redis.call('ZRANGE', index, 0, 0)[1], index)
  end
end
make_room(KEYS[2], tonumber(ARGV[5]))
make_room(overall, tonumber(ARGV[6]))
local sequence = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], 'grant', ARGV[2], 'session', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], sequence, ARGV[1])
redis.call('ZADD', overall, sequence, ARGV[1])
for _, key in ipairs({KEYS[2], overall, KEYS[4]}) do keep_at_least(key, ARGV[4]) end
return 1
`);

// KEYS: ticket, overall index. ARGV: ticket, session index prefix. Read and delete in one step: one winner.
const CONSUME_TICKET = new LuaScript(`
local grant = redis.call('HGET', KEYS[1], 'grant')
if not grant then return false end
local session = redis.call('HGET', KEYS[1], 'session')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if session then redis.call('ZREM', ARGV[2] .. session, ARGV[1]) end
return grant
`);

// KEYS: session index, overall index. ARGV: ticket key prefix.
const REVOKE_TICKETS = new LuaScript(`
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  redis.call('DEL', ARGV[1] .. member)
  redis.call('ZREM', KEYS[2], member)
end
redis.call('DEL', KEYS[1])
return 1
`);

/** WebSocket tickets shared by every instance: spent at most once, whichever instance is asked, and capped per session and overall. */
export class RedisTickets implements TicketStore {
  constructor(
    private readonly connection: StoreConnection,
    private readonly keys: KeySpace,
    private readonly clock: Clock,
    private readonly limits: { maxTickets: number; maxTicketsPerSession: number },
  ) {}

  async putTicket(ticket: string, grant: TicketGrant): Promise<void> {
    const keys = [this.keys.ticket(ticket), this.keys.sessionTickets(grant.sessionToken), this.keys.ticketIndex, this.keys.ticketSequence];
    const grantJson = JSON.stringify({ sessionToken: grant.sessionToken, expiresAt: grant.expiresAt });
    const args = [
      ticket,
      grantJson,
      sessionTokenHash(grant.sessionToken),
      expiryTtl(grant.expiresAt, this.clock.now()),
      this.limits.maxTicketsPerSession,
      this.limits.maxTickets,
      this.keys.ticketPrefix,
      this.keys.sessionTicketsPrefix,
    ];
    await this.connection.run(PUT_TICKET, keys, args);
  }

  async consumeTicket(ticket: string): Promise<TicketGrant | null> {
    const grant = await this.connection.run(
      CONSUME_TICKET,
      [this.keys.ticket(ticket), this.keys.ticketIndex],
      [ticket, this.keys.sessionTicketsPrefix],
    );
    return typeof grant === 'string' ? decodeGrant(grant) : null;
  }

  async revokeTickets(sessionToken: string): Promise<void> {
    await this.connection.run(REVOKE_TICKETS, [this.keys.sessionTickets(sessionToken), this.keys.ticketIndex], [this.keys.ticketPrefix]);
  }
}

function decodeGrant(text: string): TicketGrant {
  const { sessionToken, expiresAt } = JSON.parse(text) as Record<string, unknown>;
  if (typeof sessionToken !== 'string' || typeof expiresAt !== 'number') throw new Error('a ticket in Redis holds no valid grant');
  return { sessionToken, expiresAt };
}
