import type { SecurityEventSink } from '@webui/core';
import { Hono } from 'hono';
import type { AppLogger, WebuiEnv, WebuiServices } from '../app-env.js';
import { banEntryJson } from '../ban-entry-body.js';
import { errorBody } from '../error-body.js';

/** /security/*: the bans an operator sees and lifts (login required, Origin-checked like every state change). */
export function securityRoutes(services: WebuiServices, logger: AppLogger, audit: SecurityEventSink) {
  const { bans } = services;
  return new Hono<WebuiEnv>()
    .get('/security/bans', async (c) => c.json({ bans: (await bans.list()).map(banEntryJson) }))
    .delete('/security/bans/:key', async (c) => {
      // Hono hands the path parameter over percent-decoded: `2001%3Adb8%3A%3A%2F64` arrives as `2001:db8::/64`.
      const target = c.req.param('key');
      const result = await bans.lift(target);
      if (!result.ok) return errorBody(c, 400, 'invalid_ban_target', 'The key must be `all`, an IP address, a CIDR, or a key as GET /security/bans lists it.');
      const lifted = result.value.map(banEntryJson);
      const keys = lifted.map((entry) => entry.key);
      logger.info({ ip: c.get('clientIp'), target, lifted: keys, via: 'api' }, lifted.length > 0 ? 'bans lifted' : 'ban lift matched nothing');
      if (keys.length > 0) audit.record({ event: 'ban_lifted', address: c.get('clientIp'), via: 'api', target, lifted: keys });
      return c.json({ success: true as const, lifted });
    });
}
