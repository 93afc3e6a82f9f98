import { WebuiError, type WebuiClient } from '@webui/client';
import { showTokenRefusal } from './custom-token-view.js';
import { bodyField, failureMessage } from '../page/failure-message.js';
import { busy, guarded } from '../page/guarded-action.js';
import { revealToken } from './new-token-view.js';
import { submitButtonOf, ui } from '../page/page-elements.js';
import { clearErrors, notify, setText } from '../page/page-view.js';
import type { SessionFlow } from './session-flow.js';

function showUpdateRefusal(error: WebuiError): void {
  const listed = bodyField(error, 'violations');
  const violations = Array.isArray(listed) ? listed.filter((v): v is string => typeof v === 'string') : [];
  showTokenRefusal(
    violations.length > 0
      ? 'This token is not accepted. It needs:'
      : failureMessage(error, `The token was not changed (HTTP ${error.status}).`),
    violations,
  );
}

/** Replacing the temporary token: one of the person's choosing, or a random one shown once; then a login with it. */
export function bindTokenFlow(client: WebuiClient, session: SessionFlow): void {
  ui.tokenForm.form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors();
    const candidate = ui.tokenForm.input.value;
    void guarded(
      () =>
        busy(submitButtonOf(ui.tokenForm.form), async () => {
          // Through `api`: `client.updateToken` would log in by itself and keep the token in the page.
          const updated = await session.call(() => client.api.auth.update.$post({ json: { new_token: candidate } }), showUpdateRefusal);
          if (updated === undefined) return;
          ui.tokenForm.input.value = '';
          notify('Your token is set. Logging in with it…');
          await session.reloginWith(candidate);
        }),
      ui.tokenRefusal.message,
      () => (ui.tokenRefusal.box.hidden = false),
    );
  });

  ui.regenerate.button.addEventListener('click', () => {
    clearErrors();
    void guarded(
      () =>
        busy(ui.regenerate.button, async () => {
          // Through `api`: `client.regenerateToken` (which no longer loses the token to a failed login) would keep the token in
          // the page for its re-logins, and the page logs in through SessionFlow, whose answer picks the view.
          const generated = await session.call(
            async () => (await client.api.auth.regenerate.$post()).json(),
            (error) => setText(ui.regenerate.error, failureMessage(error, `No new token was generated (HTTP ${error.status}).`)),
          );
          if (generated === undefined) return;
          revealToken(generated.token);
          await session.reloginWith(generated.token);
        }),
      ui.regenerate.error,
    );
  });
}
