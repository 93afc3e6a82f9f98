import type { BanEntry, WebuiClient, WebuiError } from '@webui/client';
import { clearBans, showBans } from './bans-view.js';
import { failureMessage } from '../page/failure-message.js';
import { busy, guarded } from '../page/guarded-action.js';
import { ui } from '../page/page-elements.js';
import { notify, setText } from '../page/page-view.js';
import type { SessionFlow, SessionPanel } from '../session/session-flow.js';

/** What a person reads after a lift: the keys lifted, or why nothing was. */
function liftedMessage(target: string, lifted: readonly BanEntry[]): string {
  if (lifted.length === 0)
    return target === 'all'
      ? 'Nothing to lift: the list was already empty.'
      : `Nothing to lift for ${target}: its ban ended or was lifted already.`;
  return `Lifted: ${lifted.map((entry) => entry.key).join(', ')}.`;
}

/** The blocked-addresses panel: the list on login and on Refresh; a lift (one key or all), then the list again. */
export class BansFlow implements SessionPanel {
  /** Bumped by stop(): a list that arrives after logout is not drawn. */
  private generation = 0;

  constructor(
    private readonly client: WebuiClient,
    private readonly session: SessionFlow,
  ) {}

  bind(): void {
    ui.bans.refresh.addEventListener('click', () => void this.run(ui.bans.refresh, () => this.reload()));
    ui.bans.liftAll.addEventListener('click', () => void this.run(ui.bans.liftAll, () => this.lift('all')));
  }

  start(): void {
    void this.run(ui.bans.refresh, () => this.reload());
  }

  stop(): void {
    this.generation += 1;
    clearBans();
    setText(ui.bans.error, null);
  }

  /** One press: the button disabled meanwhile, the last error cleared, any failure shown in the panel. */
  private run(button: HTMLButtonElement, work: () => Promise<void>): Promise<void> {
    setText(ui.bans.error, null);
    return guarded(() => busy(button, work), ui.bans.error);
  }

  private async reload(): Promise<void> {
    const generation = this.generation;
    const bans = await this.session.call(
      () => this.client.listBans(),
      (error) => this.refused(error, 'The list could not be read'),
    );
    if (bans === undefined || generation !== this.generation) return;
    showBans(bans, (key, button) => void this.run(button, () => this.lift(key)));
  }

  private async lift(target: string): Promise<void> {
    const lifted = await this.session.call(
      () => this.client.liftBan(target),
      (error) => this.refused(error, 'Nothing was lifted'),
    );
    if (lifted === undefined) return;
    notify(liftedMessage(target, lifted));
    await this.reload();
  }

  private refused(error: WebuiError, what: string): void {
    setText(ui.bans.error, failureMessage(error, `${what} (HTTP ${error.status}).`));
  }
}
