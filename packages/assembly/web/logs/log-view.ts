import type { LogEntry } from '@webui/http-hono';
import { ui } from '../page/page-elements.js';

const MAX_LOG_ROWS = 500;

export type LogState = 'on' | 'off' | 'pending';

/** The badge beside the live log's title. */
export function showLogState(label: string, state: LogState): void {
  ui.logs.state.textContent = label;
  ui.logs.state.dataset['state'] = state;
}

/** Appends rows, drops the oldest beyond 500, and follows the end only if the reader was already there. */
export function appendLogRows(entries: readonly LogEntry[]): void {
  if (entries.length === 0) return;
  const list = ui.logs.list;
  const pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  list.append(...entries.map(logRow));
  while (list.childElementCount > MAX_LOG_ROWS) list.firstElementChild?.remove();
  if (pinned) list.scrollTop = list.scrollHeight;
}

function logRow(entry: LogEntry): HTMLLIElement {
  const row = document.createElement('li');
  const level = entry.level.toLowerCase().replace(/[^a-z]/g, '');
  row.className = `log-entry level-${level || 'other'}`;
  const time = document.createElement('time');
  time.dateTime = entry.timestamp;
  const when = new Date(entry.timestamp);
  time.textContent = Number.isNaN(when.getTime()) ? entry.timestamp : when.toLocaleTimeString([], { hour12: false });
  time.title = entry.timestamp;
  const levelCell = document.createElement('span');
  levelCell.className = 'log-level';
  levelCell.textContent = entry.level;
  const moduleCell = document.createElement('span');
  moduleCell.className = 'log-module';
  moduleCell.textContent = typeof entry.module === 'string' ? entry.module : '';
  const messageCell = document.createElement('span');
  messageCell.className = 'log-message';
  messageCell.textContent = entry.message;
  row.append(time, levelCell, moduleCell, messageCell);
  return row;
}
