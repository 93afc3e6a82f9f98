import * as v from 'valibot';
import type { LogEntry, LogLevel } from '@webui/http-hono';
import { logTimestampMs } from '@webui/http-hono';

/** A line of the merged log view (issue 33): ours or the bot's, with the bot's optional display hints. */
export interface MergedLogEntry extends LogEntry {
  moduleDisplayName?: string;
  moduleColor?: string;
  moduleBold?: boolean;
  moduleBackgroundColor?: string;
}

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']);
const ALIASES: Readonly<Record<string, LogLevel>> = { WARN: 'WARNING', FATAL: 'CRITICAL' };

/** A level in the dashboard's names: any other is hidden under every filter but "all" (docs/dashboard.md §4). */
export function dashboardLevelOf(level: unknown): LogLevel {
  if (typeof level !== 'string') return 'INFO';
  const upper = level.trim().toUpperCase();
  if (LEVELS.has(upper)) return upper as LogLevel;
  return ALIASES[upper] ?? 'INFO';
}

/** What a bot entry must have to be shown: the dashboard trims timestamp and module, so a non-string would throw there. */
const BotEntry = v.looseObject({
  id: v.union([v.pipe(v.string(), v.minLength(1)), v.number()]),
  timestamp: v.string(),
  message: v.string(),
  module: v.optional(v.string(), ''),
  level: v.optional(v.unknown()),
});

/** The bot's entry as the merged view shows it, or null when it is malformed (dropped, never shown). */
export function botEntryOf(raw: unknown): MergedLogEntry | null {
  const parsed = v.safeParse(BotEntry, raw);
  if (!parsed.success) return null;
  const { id, timestamp, message, module, level } = parsed.output;
  const entry: MergedLogEntry = { id: `bot-${id}`, timestamp, level: dashboardLevelOf(level), module, message };
  const hints = parsed.output as Record<string, unknown>;
  if (typeof hints['moduleDisplayName'] === 'string') entry.moduleDisplayName = hints['moduleDisplayName'];
  if (typeof hints['moduleColor'] === 'string') entry.moduleColor = hints['moduleColor'];
  if (typeof hints['moduleBold'] === 'boolean') entry.moduleBold = hints['moduleBold'];
  if (typeof hints['moduleBackgroundColor'] === 'string') entry.moduleBackgroundColor = hints['moduleBackgroundColor'];
  return entry;
}

/**
 * Our entry in the merged view: its id and module say it is this server's, not the bot's. `gateway.`, not `webui.`: the
 * original bot names its own WebUI modules `webui.*` (webui.plugin_routes, webui.git_mirror), seen beside ours by hand.
 */
export function ownEntryOf(entry: LogEntry): MergedLogEntry {
  return {
    ...entry,
    id: `webui-${entry.id}`,
    level: dashboardLevelOf(entry.level),
    module: entry.module ? `gateway.${entry.module}` : 'gateway',
  };
}

/** The bot's raw snapshot entries, the malformed ones dropped. */
export function botEntriesOf(raw: unknown): MergedLogEntry[] {
  if (!Array.isArray(raw)) return [];
  const entries: MergedLogEntry[] = [];
  for (const item of raw) {
    const entry = botEntryOf(item);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * Ours and the bot's entries (each oldest first) as one list ordered by time, the last `count` of them.
 * An entry whose time cannot be read keeps its place after the one before it in its own list; `now` dates a year-less time.
 */
export function mergeByTime(
  ours: readonly MergedLogEntry[],
  bots: readonly MergedLogEntry[],
  count: number,
  now: number,
): MergedLogEntry[] {
  if (count <= 0) return [];
  const keyed = [...withTimeKeys(ours, now), ...withTimeKeys(bots, now)];
  // Array.prototype.sort is stable: equal times keep ours before the bot's, and each list's own order.
  keyed.sort((a, b) => a.key - b.key);
  return keyed.slice(-count).map(({ entry }) => entry);
}

function withTimeKeys(entries: readonly MergedLogEntry[], now: number): { entry: MergedLogEntry; key: number }[] {
  let previous = Number.NEGATIVE_INFINITY;
  return entries.map((entry) => {
    const key = logTimestampMs(entry.timestamp, now) ?? previous;
    previous = key;
    return { entry, key };
  });
}
