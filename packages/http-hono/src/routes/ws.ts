import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { WSEvents } from 'hono/ws';
import type { HttpPolicy, WebuiEnv, WebuiServices } from '../app-env.js';
import { isAllowedOrigin } from '../allowed-origins.js';
import { AMBIGUOUS_CREDENTIALS_DETAIL, countAmbiguousAttempt } from '../ambiguous-credentials.js';
import type { AttemptGate } from '../attempt-gate.js';
import { errorBody, tooManyAttempts } from '../error-body.js';
import { attemptClientOf } from '../request-session.js';
import { requestHeader } from '../runtime-port.js';
import type { WsHub } from '../ws/ws-hub.js';
import { handshakeRefusal } from '../ws/websocket-handshake.js';

/** The runtime's WebSocket upgrade (hono's upgradeWebSocket of @hono/node-ws, hono/bun, hono/deno). */
export type WsUpgrade = (createEvents: (c: Context) => WSEvents<unknown>) => MiddlewareHandler;

const REFUSALS = {
  unknown_ticket: 'The ticket is unknown or was already used; get a new one from /api/webui/ws-token.',
  expired_ticket: 'The ticket expired (tickets live 60 seconds); get a new one from /api/webui/ws-token.',
  session_revoked: 'The session the ticket was issued from is no longer valid; log in again.',
} as const;

/** The channel's path under the API prefix. */
export const WS_ROUTE = '/ws';

/** GET /ws?token=<ticket>: the unified channel, opened only with a live one-time ticket (DESIGN D13). */
export function wsRoutes(services: WebuiServices, policy: HttpPolicy, hub: WsHub, upgrade: WsUpgrade, gate: AttemptGate, originRefused: (address: string) => void = () => undefined) {
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
      const tickets = c.req.queries('token') ?? [];
      if (tickets.length > 1) {
        // More than one ticket is refused with none redeemed, as one guess (ambiguous-credentials.ts).
        const refusal = await countAmbiguousAttempt(attemptClientOf(c), gate, 'ticket');
        if (refusal) return tooManyAttempts(c, refusal.retryAfterSeconds, {}, refusal.scope);
        return errorBody(c, 400, 'duplicate_credentials', AMBIGUOUS_CREDENTIALS_DETAIL.duplicate_credentials);
      }
      const [ticket] = tickets;
      if (!ticket) return errorBody(c, 401, 'missing_ticket', 'Pass a ticket from /api/webui/ws-token as ?token=.');
      const redeemed = await services.tickets.redeem(ticket);
      if (!redeemed.ok) return errorBody(c, 401, redeemed.error, REFUSALS[redeemed.error]);
      if (!hub.canAccept(redeemed.value.sessionToken)) {
        c.header('Retry-After', '5');
        return errorBody(c, 429, 'too_many_connections', 'Too many WebSocket connections; close some and try again.', { retry_after: 5 });
      }
      c.set('sessionToken', redeemed.value.sessionToken);
      await next();
    },
    upgrade((c: Context<WebuiEnv>) => hub.events(c.get('sessionToken'))),
  );
}
