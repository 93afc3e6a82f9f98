import { ui } from '../page/page-elements.js';

/** Shows a generated token this once, with the copy button focused. */
export function revealToken(token: string): void {
  ui.newToken.value.textContent = token;
  ui.newToken.copyStatus.textContent = '';
  ui.newToken.panel.hidden = false;
  ui.newToken.copy.focus();
}

/** Takes the token off the page. */
export function dismissToken(): void {
  ui.newToken.value.textContent = '';
  ui.newToken.copyStatus.textContent = '';
  window.getSelection()?.removeAllRanges();
  ui.newToken.panel.hidden = true;
}

function copyToken(): void {
  const token = ui.newToken.value.textContent ?? '';
  // Without clipboard access (no permission, no secure context) the person copies the selected text.
  const selectInstead = () => {
    window.getSelection()?.selectAllChildren(ui.newToken.value);
    ui.newToken.copyStatus.textContent = 'The token is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  };
  if (!navigator.clipboard?.writeText) return selectInstead();
  navigator.clipboard.writeText(token).then(() => {
    ui.newToken.copyStatus.textContent = 'Copied to the clipboard.';
  }, selectInstead);
}

export function bindNewTokenPanel(): void {
  ui.newToken.copy.addEventListener('click', copyToken);
  ui.newToken.dismiss.addEventListener('click', dismissToken);
}
