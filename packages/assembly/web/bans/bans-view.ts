import type { BanEntry } from '@webui/client';
import { ui } from '../page/page-elements.js';
import { timeCell } from '../page/time-cell.js';

/** Called with a row's key and its button when that row's Lift is pressed. */
export type LiftHandler = (key: string, button: HTMLButtonElement) => void;

/** Draws the list: a row per key with its Lift button, "Lift all" beside more than one row, the empty line beside none. */
export function showBans(entries: readonly BanEntry[], lift: LiftHandler): void {
  ui.bans.rows.replaceChildren(...entries.map((entry) => banRow(entry, lift)));
  ui.bans.table.hidden = entries.length === 0;
  ui.bans.empty.hidden = entries.length > 0;
  ui.bans.liftAll.hidden = entries.length < 2;
}

/** Takes the list off the page, so the next person to log in never sees the last one's. */
export function clearBans(): void {
  ui.bans.rows.replaceChildren();
  ui.bans.table.hidden = true;
  ui.bans.empty.hidden = true;
  ui.bans.liftAll.hidden = true;
}

function banRow(entry: BanEntry, lift: LiftHandler): HTMLTableRowElement {
  const row = document.createElement('tr');
  if (entry.banned_until !== null) row.className = 'banned';
  const key = document.createElement('th');
  key.scope = 'row';
  key.className = 'ban-key';
  key.textContent = entry.key;
  const failures = document.createElement('td');
  failures.className = 'ban-failures';
  failures.textContent = String(entry.failures);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary small';
  button.textContent = 'Lift';
  button.addEventListener('click', () => lift(entry.key, button));
  const action = document.createElement('td');
  action.append(button);
  row.append(key, failures, timeCell(entry.banned_until, 'not banned', 'ban-until'), timeCell(entry.last_attempt, '—', 'ban-last'), action);
  return row;
}
