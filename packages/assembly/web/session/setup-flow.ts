import type { SetupChangeResult, WebuiClient } from '@webui/client';
import { failureMessage } from '../page/failure-message.js';
import { busy, guarded } from '../page/guarded-action.js';
import { ui } from '../page/page-elements.js';
import { clearErrors, notify, setText, show, showStatus } from '../page/page-view.js';
import type { SessionFlow } from './session-flow.js';

interface SetupChange {
  button: HTMLButtonElement;
  errorTarget: HTMLElement;
  request: () => Promise<SetupChangeResult>;
  refusal: string;
  done: () => void;
}

/** Completing the first setup, and resetting it (after a confirmation). */
export function bindSetupFlow(client: WebuiClient, session: SessionFlow): void {
  const change = ({ button, errorTarget, request, refusal, done }: SetupChange) =>
    guarded(
      () =>
        busy(button, async () => {
          const result = await session.call(request, (error) =>
            setText(errorTarget, failureMessage(error, `${refusal} (HTTP ${error.status}).`)),
          );
          if (result !== undefined) done();
        }),
      errorTarget,
    );

  ui.setup.complete.addEventListener('click', () => {
    clearErrors();
    void change({
      button: ui.setup.complete,
      errorTarget: ui.setup.error,
      request: () => client.completeSetup(),
      refusal: 'Setup could not be completed',
      done() {
        notify('First setup completed.');
        showStatus('configured');
      },
    });
  });

  ui.status.reset.addEventListener('click', () => {
    clearErrors();
    if (!window.confirm('Reset the first-setup state? The setup wizard will be entered again.')) return;
    void change({
      button: ui.status.reset,
      errorTarget: ui.status.error,
      request: () => client.resetSetup(),
      refusal: 'Setup could not be reset',
      done() {
        notify('First setup reset.');
        show('setup');
      },
    });
  });
}
