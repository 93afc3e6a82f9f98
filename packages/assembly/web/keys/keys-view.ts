import type { KeyEntry } from '@webui/client';
import { onConfirmedPress } from '../page/confirm-press.js';
import { ui } from '../page/page-elements.js';
import { timeCell } from '../page/time-cell.js';

/** Called with a row's key name and its button once that row's Revoke was confirmed. */
export type RevokeHandler = (name: string, button: HTMLButtonElement) => void;

/** Draws the list: a row per key with its Revoke button, the empty line beside none. */
export function showKeys(entries: readonly KeyEntry[], revoke: RevokeHandler): void {
  ui.keys.rows.replaceChildren(...entries.map((entry) => keyRow(entry, revoke)));
  ui.keys.table.hidden = entries.length === 0;
  ui.keys.empty.hidden = entries.length > 0;
}

/** Takes the list off the page, so the next person to log in never sees the last one's. */
export function clearKeys(): void {
  ui.keys.rows.replaceChildren();
  ui.keys.table.hidden = true;
  ui.keys.empty.hidden = true;
}

function keyRow(entry: KeyEntry, revoke: RevokeHandler): HTMLTableRowElement {
  const row = document.createElement('tr');
  if (entry.expired) row.className = 'expired';
  const name = document.createElement('th');
  name.scope = 'row';
  name.className = 'key-name';
  name.textContent = entry.name;
  const scope = document.createElement('td');
  scope.className = 'key-scope';
  scope.textContent = entry.scope;
  const expires = timeCell(entry.expires_at, 'never', 'key-expires');
  if (entry.expired) {
    const mark = document.createElement('span');
    mark.className = 'expired-mark';
    mark.textContent = 'expired';
    expires.append(' ', mark);
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary small';
  button.textContent = 'Revoke';
  onConfirmedPress(button, 'Confirm revoke', () => revoke(entry.name, button));
  const action = document.createElement('td');
  action.append(button);
  row.append(
    name,
    scope,
    timeCell(entry.created_at, '—', 'key-created'),
    expires,
    timeCell(entry.last_used_at, 'never', 'key-last-used'),
    action,
  );
  return row;
}
