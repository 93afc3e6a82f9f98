import { DETAILS, type OperatorOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { apiActor } from '../../session/api-actor.js';
import { banEntryJson } from './ban-entry-body.js';
import { errorBody } from '../../answers/error-body.js';
import type { WireBody } from '../../wire-body.js';

/** /security/*: the bans an operator sees and lifts (login required, Origin-checked like every state change). */
export function securityRoutes(operations: Pick<OperatorOperations, 'listBans' | 'liftBan'>) {
  return new Hono<WebuiEnv>()
    .get('/security/bans', async (c) => {
      return c.json({ bans: (await operations.listBans()).outcome.bans.map(banEntryJson) } satisfies WireBody<'BanListResponse'>);
    })
    .delete('/security/bans/:key', async (c) => {
      // Hono hands the path parameter over percent-decoded: `2001%3Adb8%3A%3A%2F64` arrives as `2001:db8::/64`.
      const { outcome } = await operations.liftBan(c.req.param('key'), apiActor(c));
      if (!outcome.ok && outcome.error === 'own_ban') return errorBody(c, 403, 'own_ban', DETAILS.ownBan);
      if (!outcome.ok)
        return errorBody(
          c,
          400,
          'invalid_ban_target',
          'The key must be `all`, an IP address, a CIDR, or a key as GET /security/bans lists it.',
        );
      return c.json({ success: true, lifted: outcome.value.map(banEntryJson) } satisfies WireBody<'BanLiftResponse'>);
    });
}
