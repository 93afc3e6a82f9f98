import type { LogEntry, LogLevel } from '@webui/http-hono';

/** pino's numeric level as one of the five the dashboard filters on: trace and debug are DEBUG, fatal is CRITICAL. */
export function dashboardLevel(pinoLevel: unknown): LogLevel {
  if (typeof pinoLevel !== 'number') return 'INFO';
  if (pinoLevel < 30) return 'DEBUG';
  if (pinoLevel < 40) return 'INFO';
  if (pinoLevel < 50) return 'WARNING';
  return pinoLevel < 60 ? 'ERROR' : 'CRITICAL';
}

/** One log line a bot sends into the dashboard's log stream: a pino record, or a plain object with these fields. */
export interface BotLogLine {
  /** pino's number (10 to 60), or a name: trace, debug, info, warn, warning, error, fatal, critical (any case); INFO otherwise. */
  level?: string | number;
  message?: string;
  /** pino's name for the message; `message` wins when both are there. */
  msg?: string;
  /** Default: the destination's module, `bot` for write(). */
  module?: string;
  /** Milliseconds since the epoch (pino's `time`) or a date string; now when absent or not a time. */
  time?: number | string;
}

const LEVEL_NAMES: ReadonlyMap<string, LogLevel> = new Map([
  ['trace', 'DEBUG'],
  ['debug', 'DEBUG'],
  ['info', 'INFO'],
  ['warn', 'WARNING'],
  ['warning', 'WARNING'],
  ['error', 'ERROR'],
  ['fatal', 'CRITICAL'],
  ['critical', 'CRITICAL'],
]);

/** A bot's level, numeric or named, as one of the dashboard's five. */
export function botLevel(level: unknown): LogLevel {
  if (typeof level === 'number') return dashboardLevel(level);
  return (typeof level === 'string' && LEVEL_NAMES.get(level.trim().toLowerCase())) || 'INFO';
}

/**
 * A bot's line as the dashboard's LogEntry under `id`, or null for what cannot be shown: a non-object, or no message.
 * Never throws, whatever the bot passes.
 */
export function botLogEntry(line: unknown, module: string, id: string, now: number): LogEntry | null {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) return null;
  const fields = line as Record<string, unknown>;
  const message = nonEmpty(fields['message']) ?? nonEmpty(fields['msg']);
  if (message === undefined) return null;
  return {
    id,
    timestamp: new Date(timeOf(fields['time']) ?? now).toISOString(),
    level: botLevel(fields['level']),
    module: nonEmpty(fields['module']) ?? module,
    message,
  };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Milliseconds of a time the bot gave, or undefined when it is none (a Date only takes ±8.64e15 ms). */
function timeOf(time: unknown): number | undefined {
  const ms = typeof time === 'number' ? time : typeof time === 'string' && time.trim() !== '' ? Date.parse(time) : NaN;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : undefined;
}
