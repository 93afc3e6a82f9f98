import type { OperatorOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../app-env.js';
import { apiActor } from '../api-actor.js';

/** /setup/*: the first-setup flag the setup wizard follows; answers carry `is_first_setup` and a human `message` (DESIGN D15). */
export function setupRoutes(operations: Pick<OperatorOperations, 'setupStatus' | 'completeSetup' | 'resetSetup'>) {
  return new Hono<WebuiEnv>()
    .get('/setup/status', async (c) => {
      const { isFirstSetup, status } = (await operations.setupStatus()).outcome;
      return c.json({
        is_first_setup: isFirstSetup,
        token_source: status.tokenSource,
        requires_custom_token: status.requiresCustomToken,
        message: isFirstSetup ? 'First setup is not completed yet.' : 'First setup is completed.',
      });
    })
    .post('/setup/complete', async (c) => {
      const { outcome: isFirstSetup } = await operations.completeSetup(apiActor(c));
      return c.json({ success: true, message: 'First setup completed.', is_first_setup: isFirstSetup });
    })
    .post('/setup/reset', async (c) => {
      const { outcome: isFirstSetup } = await operations.resetSetup(apiActor(c));
      return c.json({ success: true, message: 'First setup reset; the setup wizard can be entered again.', is_first_setup: isFirstSetup });
    });
}
