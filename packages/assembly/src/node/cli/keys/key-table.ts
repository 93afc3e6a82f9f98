import type { ApiKeyJson } from '../../../index.js';
import { localTime } from '../local-time.js';

const HEADINGS = ['NAME', 'SCOPE', 'CREATED', 'EXPIRES', 'LAST USED'] as const;

/** `webui keys list` for a terminal: one row per key, times in local time; never the key itself, which is not kept. */
export function keyTable(keys: readonly ApiKeyJson[]): string {
  if (keys.length === 0) return 'no API keys; create one with `webui keys create NAME`\n';
  const rows = keys.map((key) => [
    key.name,
    key.scope,
    localTime(key.created_at),
    expiryCell(key),
    key.last_used_at === null ? 'never' : localTime(key.last_used_at),
  ]);
  const widths = HEADINGS.map((heading, column) => Math.max(heading.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  return [HEADINGS, ...rows].map(line).join('');
}

/** When a key stops working, in words: never, the time, or that it already has. */
export function expiryCell(key: Pick<ApiKeyJson, 'expires_at' | 'expired'>): string {
  if (key.expires_at === null) return 'never';
  return key.expired ? `expired (${localTime(key.expires_at)})` : localTime(key.expires_at);
}
