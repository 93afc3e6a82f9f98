import { ui } from './page-elements.js';

export type ViewName = keyof typeof ui.views;

/** Shows one view; the logout button, the bans list, the API keys and the live log belong to every view after login. */
export function show(view: ViewName): void {
  for (const [name, element] of Object.entries(ui.views)) element.hidden = name !== view;
  const loggedIn = view !== 'loading' && view !== 'login';
  ui.logout.hidden = !loggedIn;
  ui.bans.panel.hidden = !loggedIn;
  ui.keys.panel.hidden = !loggedIn;
  ui.logs.panel.hidden = !loggedIn;
  if (view === 'login') ui.login.token.focus();
}

/** Sets a message element's text; an empty one is hidden. */
export function setText(element: HTMLElement, text: string | null): void {
  element.textContent = text ?? '';
  element.hidden = text === null || text === '';
}

export function clearErrors(): void {
  for (const element of [ui.login.error, ui.regenerate.error, ui.setup.error, ui.status.error, ui.bans.error, ui.keys.error])
    setText(element, null);
  ui.tokenRefusal.box.hidden = true;
  ui.tokenRefusal.violations.replaceChildren();
}

let noticeTimer: ReturnType<typeof setTimeout> | undefined;

/** A passing notice at the top of the page, gone after six seconds. */
export function notify(message: string): void {
  setText(ui.notice, message);
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => setText(ui.notice, null), 6_000);
}

export function showStatus(tokenSource: string): void {
  ui.status.setup.textContent = 'completed';
  ui.status.token.textContent = tokenSource === 'configured' ? 'your own (configured)' : tokenSource;
  show('status');
}
