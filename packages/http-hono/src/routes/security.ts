import { Hono } from 'hono';
import type { WebuiEnv, WebuiServices } from '../app-env.js';
import { banEntryJson } from '../ban-entry-body.js';
import { errorBody } from '../error-body.js';
import { apiActor, OWN_BAN_DETAIL, type OperatorActions } from '../operator-actions.js';

/** /security/*: the bans an operator sees and lifts (login required, Origin-checked like every state change). */
export function securityRoutes(services: WebuiServices, actions: OperatorActions) {
  return new Hono<WebuiEnv>()
    .get('/security/bans', async (c) => c.json({ bans: (await services.bans.list()).map(banEntryJson) }))
    .delete('/security/bans/:key', async (c) => {
      // Hono hands the path parameter over percent-decoded: `2001%3Adb8%3A%3A%2F64` arrives as `2001:db8::/64`.
      const result = await actions.liftBans(c.req.param('key'), apiActor(c));
      if (!result.ok && result.error === 'own_ban') return errorBody(c, 403, 'own_ban', OWN_BAN_DETAIL);
      if (!result.ok) return errorBody(c, 400, 'invalid_ban_target', 'The key must be `all`, an IP address, a CIDR, or a key as GET /security/bans lists it.');
      return c.json({ success: true as const, lifted: result.value });
    });
}
