import { ui } from '../page/page-elements.js';

/** Shows a created key this once, in a read-only field beside its Copy button. */
export function revealKey(name: string, key: string): void {
  ui.newKey.name.textContent = name;
  ui.newKey.value.value = key;
  ui.newKey.copyStatus.textContent = '';
  ui.newKey.box.hidden = false;
  ui.newKey.copy.focus();
}

/** The name of the key on show, or null when none is. */
export function shownKeyName(): string | null {
  return ui.newKey.box.hidden ? null : ui.newKey.name.textContent;
}

/** Takes the key off the page: the field is emptied, not merely hidden. */
export function hideKey(): void {
  ui.newKey.value.value = '';
  ui.newKey.name.textContent = '';
  ui.newKey.copyStatus.textContent = '';
  ui.newKey.box.hidden = true;
}

function copyKey(): void {
  const key = ui.newKey.value.value;
  // Without clipboard access (no permission, no secure context) the person copies the selected text.
  const selectInstead = () => {
    ui.newKey.value.select();
    ui.newKey.copyStatus.textContent = 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  };
  if (!navigator.clipboard?.writeText) return selectInstead();
  navigator.clipboard.writeText(key).then(() => {
    ui.newKey.copyStatus.textContent = 'Copied to the clipboard.';
  }, selectInstead);
}

export function bindNewKeyPanel(): void {
  ui.newKey.copy.addEventListener('click', copyKey);
}
