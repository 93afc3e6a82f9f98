import type { LogEntry } from '@webui/http-hono';
import { describe, expect, it } from 'vitest';
import { dashboardLevel, LogFeed } from './log-feed.js';

/** One pino line as the logger writes it. */
const line = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ level, time: 1_795_000_000_000, module: 'http', msg, ...extra })}\n`;

describe('LogFeed: entries as the existing dashboard reads them (dashboard-contract.md §4)', () => {
  it.each([
    [10, 'DEBUG'],
    [20, 'DEBUG'],
    [30, 'INFO'],
    [35, 'INFO'],
    [40, 'WARNING'],
    [50, 'ERROR'],
    [60, 'CRITICAL'],
    [70, 'CRITICAL'],
  ] as const)('pino level %i is %s', (pino, level) => {
    expect(dashboardLevel(pino)).toBe(level);
    const feed = new LogFeed();
    feed.stream.write(line(pino, 'x'));
    expect(feed.recent(1)[0]?.level).toBe(level);
  });

  it('a line without a numeric level is INFO, never a level the dashboard does not know', () => {
    const feed = new LogFeed();
    feed.stream.write(`${JSON.stringify({ level: 'loud', msg: 'x' })}\n`);
    expect(feed.recent(1)[0]).toMatchObject({ level: 'INFO', module: 'webui', message: 'x' });
  });

  it('ids are strings, unique and increasing as strings, the same in the snapshot and in the live entry', () => {
    const feed = new LogFeed(500, 1_795_000_000_000);
    const live: LogEntry[] = [];
    feed.stream.write(line(30, 'before'));
    feed.subscribe((entry) => live.push(entry));
    for (let i = 0; i < 12; i++) feed.stream.write(line(30, `line ${i}`));
    const recent = feed.recent(500);
    expect(recent.map((entry) => entry.message)).toEqual(['before', ...live.map((entry) => entry.message)]);
    expect(recent.slice(1)).toEqual(live);
    const ids = recent.map((entry) => entry.id);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Line 10 after line 9: a counter without a fixed width would sort "10" before "9".
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toBe('1795000000000_000000000001');
    expect(recent[0]).toEqual({ id: ids[0], timestamp: '2026-11-18T11:06:40.000Z', level: 'INFO', module: 'http', message: 'before' });
  });

  it('ids of a later run of the server sort after those of an earlier one', () => {
    const earlier = new LogFeed(500, 1_795_000_000_000);
    const later = new LogFeed(500, 1_795_000_000_001);
    for (const feed of [earlier, later]) for (let i = 0; i < 3; i++) feed.stream.write(line(30, `line ${i}`));
    const last = earlier.recent(1)[0]?.id as string;
    expect(later.recent(3).every((entry) => entry.id > last)).toBe(true);
  });
});
