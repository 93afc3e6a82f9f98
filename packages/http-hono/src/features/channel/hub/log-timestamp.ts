/**
 * The timestamps the merged log view orders by. This server writes ISO 8601 UTC; the bot writes its local time without a
 * zone: `YYYY-MM-DD HH:MM:SS` on live entries and, in its snapshot, its log's `date_style` (by default `MM-DD HH:MM:SS`,
 * no year), or ISO 8601. Optional year, optional date, optional fraction and zone.
 */
const TIMESTAMP =
  /^(?:(?:(\d{4})-)?(\d{1,2})-(\d{1,2})[T ])?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A time this far ahead of now is last year's (or yesterday's): the bot's clock may run a little ahead of ours. */
const AHEAD_SLACK_MS = 60 * 60_000;

/**
 * Milliseconds since the epoch of a log timestamp, or null when it is not one. A zone-less time is this host's local
 * time (the bot's lines are in its host's, most often this one); a time without a year or a date is the latest such
 * time not after `now` (give or take an hour).
 */
export function logTimestampMs(text: string, now: number): number | null {
  const match = TIMESTAMP.exec(text.trim());
  if (!match) return null;
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)];
  const millis = Number(`${match[7] ?? ''}000`.slice(0, 3));
  const zone = match[8];
  if (hour > 23 || minute > 59 || second > 60) return null;
  const at = (year: number, month: number, day: number): number => {
    if (zone === undefined) return new Date(year, month - 1, day, hour, minute, second, millis).getTime();
    return Date.UTC(year, month - 1, day, hour, minute, second, millis) - zoneOffsetMs(zone);
  };
  const today = new Date(now);
  if (match[2] === undefined) {
    const guess = at(today.getFullYear(), today.getMonth() + 1, today.getDate());
    return guess > now + AHEAD_SLACK_MS ? at(today.getFullYear(), today.getMonth() + 1, today.getDate() - 1) : guess;
  }
  const [month, day] = [Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  if (match[1] !== undefined) return at(Number(match[1]), month, day);
  const guess = at(today.getFullYear(), month, day);
  return guess > now + AHEAD_SLACK_MS ? at(today.getFullYear() - 1, month, day) : guess;
}

/** `Z`, `+08:00`, `-0430` or `+08` as milliseconds east of UTC. */
function zoneOffsetMs(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0)) * 60_000;
}
