import { Hono } from 'hono';
import type { WebuiEnv, WebuiServices } from '../app-env.js';
import { apiActor, type OperatorActions } from '../operator-actions.js';

/** /setup/*: the first-setup flag the setup wizard follows; answers carry `is_first_setup` and a human `message` (DESIGN D15). */
export function setupRoutes(services: WebuiServices, actions: OperatorActions) {
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
      const isFirstSetup = await actions.completeSetup(apiActor(c));
      return c.json({ success: true, message: 'First setup completed.', is_first_setup: isFirstSetup });
    })
    .post('/setup/reset', async (c) => {
      const isFirstSetup = await actions.resetSetup(apiActor(c));
      return c.json({ success: true, message: 'First setup reset; the setup wizard can be entered again.', is_first_setup: isFirstSetup });
    });
}
