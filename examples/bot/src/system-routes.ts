import { RouteGroup } from '@webui/assembly';
import * as v from 'valibot';

const Status = v.strictObject({ running: v.boolean(), uptime_seconds: v.number(), runtime: v.string() });
const Version = v.strictObject({ version: v.string() });

export const BOT_VERSION = '0.1.0';

/** /api/webui/system: the status for anyone logged in, and the version for anyone at all (the one public route). */
export function systemRoutes(runtime: string, startedAt: number): RouteGroup {
  return new RouteGroup('/api/webui/system')
    .get('/status', { summary: 'Whether the bot runs, and for how long', response: Status }, (c) =>
      c.json({ running: true, uptime_seconds: Math.round((Date.now() - startedAt) / 1000), runtime }),
    )
    .get(
      '/version',
      { public: true, summary: "The bot's version, for a dashboard that checks it before logging in", response: Version },
      (c) => c.json({ version: BOT_VERSION }),
    );
}
