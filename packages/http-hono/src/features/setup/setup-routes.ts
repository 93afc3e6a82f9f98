import type { OperatorOperations } from '@webui/core';
import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import { apiActor } from '../../session/api-actor.js';
import type { WireBody } from '../../wire-body.js';

/** /setup/*: the first-setup flag the setup wizard follows; answers carry `is_first_setup` and a human `message` (docs/decisions/0015-setup-and-logout-answers.md). */
export function setupRoutes(operations: Pick<OperatorOperations, 'setupStatus' | 'completeSetup' | 'resetSetup'>) {
  return new Hono<WebuiEnv>()
    .get('/setup/status', async (c) => {
      const { isFirstSetup, status } = (await operations.setupStatus()).outcome;
      return c.json({
        is_first_setup: isFirstSetup,
        token_source: status.tokenSource,
        requires_custom_token: status.requiresCustomToken,
        message: isFirstSetup ? 'First setup is not completed yet.' : 'First setup is completed.',
      } satisfies WireBody<'SetupStatusResponse'>);
    })
    .post('/setup/complete', async (c) => {
      const { outcome: isFirstSetup } = await operations.completeSetup(apiActor(c));
      const completed: WireBody<'SetupChangeResponse'> = { success: true, message: 'First setup completed.', is_first_setup: isFirstSetup };
      return c.json(completed);
    })
    .post('/setup/reset', async (c) => {
      const { outcome: isFirstSetup } = await operations.resetSetup(apiActor(c));
      const message = 'First setup reset; the setup wizard can be entered again.';
      return c.json({ success: true, message, is_first_setup: isFirstSetup } satisfies WireBody<'SetupChangeResponse'>);
    });
}
