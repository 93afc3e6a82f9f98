import { DETAILS, type TokenViolation } from '@webui/core';
import { ui } from '../page/page-elements.js';

/** The rules a custom token must meet, as the server words them. */
export function renderTokenRules(): void {
  const shown: TokenViolation[] = ['too_short', 'missing_uppercase', 'missing_lowercase', 'missing_special', 'invalid_characters'];
  ui.tokenForm.rules.replaceChildren(
    ...shown.map((rule) => {
      const item = document.createElement('li');
      item.textContent = DETAILS.tokenViolation[rule];
      return item;
    }),
  );
}

/** Why the token was not set, with one item for every rule it breaks. */
export function showTokenRefusal(message: string, violations: readonly string[]): void {
  ui.tokenRefusal.message.textContent = message;
  ui.tokenRefusal.violations.replaceChildren(
    ...violations.map((code) => {
      const item = document.createElement('li');
      item.textContent = DETAILS.tokenViolation[code as TokenViolation] ?? code;
      item.dataset['violation'] = code;
      return item;
    }),
  );
  ui.tokenRefusal.box.hidden = false;
  ui.tokenForm.input.focus();
}

export function bindShowTokenToggle(): void {
  ui.tokenForm.showInput.addEventListener('change', () => {
    ui.tokenForm.input.type = ui.tokenForm.showInput.checked ? 'text' : 'password';
  });
}
