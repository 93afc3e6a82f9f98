import type { BanEntryJson } from '../../../index.js';
import type { BudgetJson } from '../../control/budget-body.js';
import { localTime } from '../local-time.js';

const HEADINGS = ['KEY', 'FAILURES', 'BANNED UNTIL', 'LAST ATTEMPT'] as const;

/** `webui bans list` for a terminal: one row per key, times in local time, a running ban with its seconds left. */
export function banTable(bans: readonly BanEntryJson[], now: number): string {
  if (bans.length === 0) return 'no address has failures or a ban\n';
  const rows = bans.map((entry) => [
    entry.key,
    String(entry.failures),
    entry.banned_until === null ? '-' : banEnd(entry.banned_until, now),
    entry.last_attempt === null ? '-' : localTime(entry.last_attempt),
  ]);
  const widths = HEADINGS.map((heading, column) => Math.max(heading.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  return [HEADINGS, ...rows].map(line).join('');
}

/** One lifted key, as `webui bans lift` reports it. */
export function liftedLine(entry: BanEntryJson, now: number): string {
  if (entry.banned_until !== null)
    return `lifted ${entry.key} (banned until ${localTime(entry.banned_until)}, ${secondsLeft(entry.banned_until, now)} s left)\n`;
  return `lifted ${entry.key} (had ${entry.failures} ${entry.failures === 1 ? 'failure' : 'failures'})\n`;
}

function banEnd(isoTime: string, now: number): string {
  return `${localTime(isoTime)} (${secondsLeft(isoTime, now)} s left)`;
}

function secondsLeft(isoTime: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(isoTime) - now) / 1000));
}

/** The global failure budget in one line, after the table: how much of it is spent and what a new client meets. */
export function budgetLine(budget: BudgetJson): string {
  if (budget.state === 'off') return 'global failure budget: off (global_failure_budget = 0)\n';
  const spent = `global failure budget: ${budget.failures} of ${budget.limit} failures in the last hour`;
  switch (budget.state) {
    case 'open':
      return `${spent}; new clients are let in\n`;
    case 'delayed':
      return `${spent}; new clients wait ${budget.delay_ms} ms before their token is checked (webui bans reset-budget clears it)\n`;
    case 'throttled':
      return `${spent}; new clients are turned away for ${budget.retry_after} s (webui bans reset-budget clears it)\n`;
  }
}
