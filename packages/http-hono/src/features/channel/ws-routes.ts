import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { WSEvents } from 'hono/ws';
import { DETAILS, type AccessOperations } from '@webui/core';
import type { HttpPolicy, WebuiEnv } from '../../app-env.js';
import { isAllowedOrigin } from '../../host/allowed-origins.js';
import { errorBody, tooManyAttempts } from '../../answers/error-body.js';
import { attemptClientOf } from '../../session/credentials/request-session.js';
import { requestHeader } from '../../runtime-port.js';
import type { WsHub } from './hub/ws-hub.js';
import { handshakeRefusal } from './hub/websocket-handshake.js';

/** The runtime's WebSocket upgrade (hono's upgradeWebSocket of @hono/node-ws, hono/bun, hono/deno). */
export type WsUpgrade = (createEvents: (c: Context) => WSEvents<unknown>) => MiddlewareHandler;

const REFUSALS = {
  unknown_ticket: 'The ticket is unknown or was already used; get a new one from /api/webui/ws-token.',
  expired_ticket: 'The ticket expired (tickets live 60 seconds); get a new one from /api/webui/ws-token.',
  session_revoked: 'The session the ticket was issued from is no longer valid; log in again.',
} as const;

/** The channel's path under the API prefix. */
export const WS_ROUTE = '/ws';

/** GET /ws?token=<ticket>: the unified channel, opened only with a live one-time ticket (docs/decisions/0013-websocket-channel.md). */
export function wsRoutes(
  operations: Pick<AccessOperations, 'redeemTicket'>,
  policy: HttpPolicy,
  hub: WsHub,
  upgrade: WsUpgrade,
  originRefused: (address: string) => void = () => undefined,
) {
  return new Hono<WebuiEnv>().get(
    WS_ROUTE,
    async (c, next) => {
      const origin = requestHeader(c, 'origin');
      // Checked before the ticket, so a page on a foreign origin cannot even spend one.
      if (origin !== undefined && !isAllowedOrigin(origin, c, policy)) {
        originRefused(c.get('clientIp'));
        return errorBody(c, 403, 'origin_not_allowed', 'WebSocket connections from this origin are not allowed.');
      }
      // Before the ticket, so a handshake the runtime would refuse does not spend one.
      const refusal = handshakeRefusal((name) => requestHeader(c, name));
      if (refusal) {
        for (const [name, value] of Object.entries(refusal.headers)) c.header(name, value);
        return errorBody(c, refusal.status, refusal.code, refusal.detail);
      }
      const { outcome } = await operations.redeemTicket(c.req.queries('token') ?? [], attemptClientOf(c));
      switch (outcome.kind) {
        case 'refused':
          return tooManyAttempts(c, outcome.retryAfterSeconds, {}, outcome.scope);
        case 'ambiguous':
          // More than one ticket: refused with none redeemed, counted as one guess.
          return errorBody(c, 400, outcome.code, DETAILS.ambiguousCredentials[outcome.code]);
        case 'missing':
          return errorBody(c, 401, 'missing_ticket', 'Pass a ticket from /api/webui/ws-token as ?token=.');
        case 'rejected':
          return errorBody(c, 401, outcome.reason, REFUSALS[outcome.reason]);
      }
      if (!hub.canAccept(outcome.sessionToken)) {
        c.header('Retry-After', '5');
        return errorBody(c, 429, 'too_many_connections', 'Too many WebSocket connections; close some and try again.', { retry_after: 5 });
      }
      c.set('sessionToken', outcome.sessionToken);
      c.set('principal', outcome.principal);
      await next();
    },
    upgrade((c: Context<WebuiEnv>) => hub.events(c.get('principal'))),
  );
}
