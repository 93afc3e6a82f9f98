import type { WebuiClient, WebuiError } from '@webui/client';
import { failureMessage } from '../page/failure-message.js';
import { busy, guarded } from '../page/guarded-action.js';
import { clearKeys, showKeys } from './keys-view.js';
import { hideKey, revealKey, shownKeyName } from './new-key-view.js';
import { submitButtonOf, ui } from '../page/page-elements.js';
import { notify, setText } from '../page/page-view.js';
import type { SessionFlow, SessionPanel } from '../session/session-flow.js';

/** The API keys panel: the list on login and on Reload; create (the key shown once), revoke, then the list again. */
export class KeysFlow implements SessionPanel {
  /** Bumped by stop(): a list or a key that arrives after logout is not drawn. */
  private generation = 0;

  constructor(
    private readonly client: WebuiClient,
    private readonly session: SessionFlow,
  ) {}

  bind(): void {
    ui.keys.reload.addEventListener('click', () => {
      // The key was shown once; reloading is moving on.
      hideKey();
      void this.run(ui.keys.reload, () => this.reload());
    });
    ui.keys.form.addEventListener('submit', (event) => {
      event.preventDefault();
      hideKey();
      const name = ui.keys.name.value.trim();
      if (name === '') {
        setText(ui.keys.error, 'Enter a name for the key.');
        return;
      }
      const scope = ui.keys.scope.value === 'admin' ? 'admin' : 'read';
      const expires = ui.keys.expiry.value === '' ? null : ui.keys.expiry.value;
      void this.run(submitButtonOf(ui.keys.form), () => this.create(name, scope, expires));
    });
  }

  start(): void {
    void this.run(ui.keys.reload, () => this.reload());
  }

  stop(): void {
    this.generation += 1;
    hideKey();
    clearKeys();
    ui.keys.form.reset();
    setText(ui.keys.error, null);
  }

  /** One press: the button disabled meanwhile, the last error cleared, any failure shown in the panel. */
  private run(button: HTMLButtonElement | null, work: () => Promise<void>): Promise<void> {
    setText(ui.keys.error, null);
    return guarded(() => busy(button, work), ui.keys.error);
  }

  private async reload(): Promise<void> {
    const generation = this.generation;
    const keys = await this.session.call(
      () => this.client.listKeys(),
      (error) => this.refused(error, 'The list could not be read'),
    );
    if (keys === undefined || generation !== this.generation) return;
    showKeys(keys, (name, button) => void this.run(button, () => this.revoke(name)));
  }

  private async create(name: string, scope: 'read' | 'admin', expires: string | null): Promise<void> {
    const generation = this.generation;
    const created = await this.session.call(
      () => this.client.createKey({ name, scope, expires }),
      (error) => this.refused(error, 'The key was not created'),
    );
    if (created === undefined || generation !== this.generation) return;
    ui.keys.form.reset();
    revealKey(created.name, created.key);
    await this.reload();
  }

  private async revoke(name: string): Promise<void> {
    const revoked = await this.session.call(
      () => this.client.revokeKey(name),
      (error) => this.refused(error, 'The key was not revoked'),
    );
    if (revoked === undefined) return;
    if (shownKeyName() === name) hideKey();
    notify(`Revoked ${name}: it is refused from now on.`);
    await this.reload();
  }

  private refused(error: WebuiError, what: string): void {
    setText(ui.keys.error, failureMessage(error, `${what} (HTTP ${error.status}).`));
  }
}
