import { WebuiError, type CheckResult, type VerifyResult, type WebuiClient } from '@webui/client';
import { failureMessage, retryMessage } from '../page/failure-message.js';
import { busy, guarded } from '../page/guarded-action.js';
import { dismissToken } from './new-token-view.js';
import { submitButtonOf, ui } from '../page/page-elements.js';
import { clearErrors, notify, setText, show, showStatus } from '../page/page-view.js';

interface SessionFacts {
  requiresCustomToken: boolean;
  tokenSource: string;
  /** Unknown after /auth/check, which does not carry it. */
  isFirstSetup?: boolean;
}

type LoginOutcome = { ok: true } | { ok: false; message: string };

/** Something that runs while a person is logged in (the live log, the bans list): started on entering, stopped on leaving. */
export interface SessionPanel {
  start(): void;
  stop(): void;
}

function factsOf(check: Extract<CheckResult, { authenticated: true }>): SessionFacts {
  return { requiresCustomToken: check.requires_custom_token === true, tokenSource: check.token_source ?? 'unknown' };
}

/** Login, the view that fits the session, losing it and logout; the attached panels run while logged in. */
export class SessionFlow {
  private readonly panels: SessionPanel[] = [];

  constructor(private readonly client: WebuiClient) {}

  /** Adds a panel; attached after construction because a panel calls the API through this flow (a 401 ends the session). */
  attach(panel: SessionPanel): void {
    this.panels.push(panel);
  }

  /** The first view: a login from the link's token, else the session the cookie may still hold. */
  async start(tokenFromUrl: string | null): Promise<void> {
    if (tokenFromUrl !== null) {
      const outcome = await this.login(tokenFromUrl);
      if (outcome.ok) return;
      // A stale login link must not hide a session that is still valid.
      const check = await this.check();
      if (!(check instanceof WebuiError) && check.authenticated) {
        await this.enter(factsOf(check));
        notify(`The token in the login link was not accepted (${outcome.message}); you are still logged in.`);
        return;
      }
      show('login');
      setText(ui.login.error, `The token in the login link was not accepted. ${outcome.message}`);
      return;
    }
    const check = await this.check();
    if (check instanceof WebuiError && check.status === 429) {
      show('login');
      setText(ui.login.error, retryMessage(check.retryAfter));
      return;
    }
    if (!(check instanceof WebuiError) && check.authenticated) return this.enter(factsOf(check));
    show('login');
  }

  /** Logs in again with a token just set: changing the token cleared the old cookie. */
  async reloginWith(token: string): Promise<void> {
    // The socket opened under the old token is closing (4001); start afresh under the new one.
    this.stopPanels();
    const outcome = await this.login(token);
    if (!outcome.ok) this.lost(`The token was changed, but logging in with it failed: ${outcome.message}`);
  }

  /** A login-required call answered 401: the session is gone (token changed, expired, revoked). */
  lost(message = 'Your session has ended; log in again.'): void {
    this.stopPanels();
    show('login');
    setText(ui.login.error, message);
  }

  /** Calls the API under the session: a 401 ends it, another refusal goes to `refused`; resolves undefined then. */
  async call<T>(request: () => Promise<T>, refused: (error: WebuiError) => void): Promise<T | undefined> {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof WebuiError)) throw error;
      if (error.status === 401) this.lost();
      else refused(error);
      return undefined;
    }
  }

  bind(): void {
    ui.login.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const token = ui.login.token.value.trim();
      clearErrors();
      if (token === '') return setText(ui.login.error, 'Enter the access token.');
      void guarded(
        () =>
          busy(submitButtonOf(ui.login.form), async () => {
            const outcome = await this.login(token);
            if (outcome.ok) ui.login.token.value = '';
            else setText(ui.login.error, outcome.message);
          }),
        ui.login.error,
      );
    });
    ui.logout.addEventListener('click', () => {
      void guarded(() => busy(ui.logout, () => this.logout()), ui.login.error);
    });
  }

  /** POST /auth/verify through `api`: `client.login` would keep the token in the page for re-logins. */
  private async login(token: string): Promise<LoginOutcome> {
    let result: VerifyResult;
    try {
      result = (await (await this.client.api.auth.verify.$post({ json: { token } })).json()) as VerifyResult;
    } catch (error) {
      if (!(error instanceof WebuiError)) throw error;
      return { ok: false, message: failureMessage(error, `Login failed (HTTP ${error.status}).`) };
    }
    if (!result.valid) return { ok: false, message: typeof result.message === 'string' ? result.message : 'Invalid token.' };
    await this.enter({
      requiresCustomToken: result.requires_custom_token === true,
      tokenSource: result.token_source ?? 'unknown',
      isFirstSetup: result.is_first_setup === true,
    });
    return { ok: true };
  }

  /** /auth/check; a refusal (a ban's 429, say) is returned for the caller to read. */
  private async check(): Promise<CheckResult | WebuiError> {
    try {
      return await this.client.check();
    } catch (error) {
      if (error instanceof WebuiError) return error;
      throw error;
    }
  }

  private async enter(facts: SessionFacts): Promise<void> {
    for (const panel of this.panels) panel.start();
    if (facts.requiresCustomToken) return show('customToken');
    let isFirstSetup = facts.isFirstSetup;
    let tokenSource = facts.tokenSource;
    if (isFirstSetup === undefined) {
      const status = await this.call(
        () => this.client.setupStatus(),
        (error) => {
          show('setup');
          setText(ui.setup.error, failureMessage(error, 'The setup state could not be read.'));
        },
      );
      if (status === undefined) return;
      if (status.requires_custom_token === true) return show('customToken');
      isFirstSetup = status.is_first_setup === true;
      tokenSource = status.token_source ?? tokenSource;
    }
    if (isFirstSetup) show('setup');
    else showStatus(tokenSource);
  }

  private stopPanels(): void {
    for (const panel of this.panels) panel.stop();
  }

  private async logout(): Promise<void> {
    this.stopPanels();
    try {
      await this.client.logout();
    } catch (error) {
      // Whatever the server answered, the page leaves the session.
      if (!(error instanceof WebuiError)) throw error;
    }
    dismissToken();
    clearErrors();
    notify('Logged out.');
    show('login');
  }
}
