import { describe, expect, it } from 'vitest';
import { logTimestampMs } from './log-timestamp.js';

const NOW = new Date(2025, 5, 15, 12, 0, 0).getTime();

describe('logTimestampMs', () => {
  it.each([
    ['2025-01-01T12:00:00Z', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T12:00:00.250Z', Date.UTC(2025, 0, 1, 12, 0, 0, 250)],
    ['2025-01-01T12:00:00.123456Z', Date.UTC(2025, 0, 1, 12, 0, 0, 123)],
    ['2025-01-01T20:00:00+08:00', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T07:30:00-0430', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T20:00:00+08', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01 12:00:00z', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T12:00Z', Date.UTC(2025, 0, 1, 12)],
  ])('%s (with a zone)', (text, expected) => {
    expect(logTimestampMs(text, NOW)).toBe(expected);
  });

  it("a zone-less time (the bot's live lines) is this host's local time", () => {
    expect(logTimestampMs('2025-01-01 20:00:00', NOW)).toBe(new Date(2025, 0, 1, 20, 0, 0).getTime());
    expect(logTimestampMs('2025-01-01T20:00:00,5', NOW)).toBe(new Date(2025, 0, 1, 20, 0, 0, 500).getTime());
  });

  it("a year-less time (the bot's snapshot, date_style m-d H:i:s) is this year's, or last year's when it would be ahead of now", () => {
    expect(logTimestampMs('06-15 11:59:30', NOW)).toBe(new Date(2025, 5, 15, 11, 59, 30).getTime());
    expect(logTimestampMs('06-15 12:30:00', NOW)).toBe(new Date(2025, 5, 15, 12, 30, 0).getTime());
    expect(logTimestampMs('12-31 23:00:00', NOW)).toBe(new Date(2024, 11, 31, 23, 0, 0).getTime());
    expect(logTimestampMs('1-2 03:04:05', NOW)).toBe(new Date(2025, 0, 2, 3, 4, 5).getTime());
  });

  it("a date-less time (date_style H:i:s) is today's, or yesterday's when it would be ahead of now", () => {
    expect(logTimestampMs('11:00:00', NOW)).toBe(new Date(2025, 5, 15, 11, 0, 0).getTime());
    expect(logTimestampMs('23:00:00', NOW)).toBe(new Date(2025, 5, 14, 23, 0, 0).getTime());
  });

  it.each([
    ['yesterday'],
    [''],
    ['2025-01-01'],
    ['2025-13-01 10:00:00'],
    ['2025-01-00 10:00:00'],
    ['24:00:00'],
    ['10:61:00'],
    ['2025-01-01T12:00:00Zjunk'],
  ])('%j is no time', (text) => {
    expect(logTimestampMs(text, NOW)).toBeNull();
  });
});
