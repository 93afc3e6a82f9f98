import type { SecurityEventSink } from '@webui/core';
import { Hono } from 'hono';
import type { AppLogger, WebuiEnv, WebuiServices } from '../app-env.js';

/** /setup/*: the first-setup flag the setup wizard follows; answers carry `is_first_setup` and a human `message` (DESIGN D15). */
export function setupRoutes(services: WebuiServices, logger: AppLogger, audit: SecurityEventSink) {
  const { tokens, setup } = services;
  return new Hono<WebuiEnv>()
    .get('/setup/status', async (c) => {
      const [isFirstSetup, status] = await Promise.all([setup.isFirstSetup(), tokens.status()]);
      return c.json({
        is_first_setup: isFirstSetup,
        token_source: status.tokenSource,
        requires_custom_token: status.requiresCustomToken,
        message: isFirstSetup ? 'First setup is not completed yet.' : 'First setup is completed.',
      });
    })
    .post('/setup/complete', async (c) => {
      const isFirstSetup = await setup.complete();
      logger.info({ ip: c.get('clientIp') }, 'first setup completed');
      audit.record({ event: 'setup_completed', address: c.get('clientIp'), via: 'api' });
      return c.json({ success: true, message: 'First setup completed.', is_first_setup: isFirstSetup });
    })
    .post('/setup/reset', async (c) => {
      const isFirstSetup = await setup.reset();
      logger.info({ ip: c.get('clientIp') }, 'first setup reset');
      audit.record({ event: 'setup_reset', address: c.get('clientIp'), via: 'api' });
      return c.json({ success: true, message: 'First setup reset; the setup wizard can be entered again.', is_first_setup: isFirstSetup });
    });
}
