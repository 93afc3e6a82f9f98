import { WsHub, type LogEntry } from '@webui/http-hono';
import type { WSContext } from 'hono/ws';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { dashboardLevel, LogFeed } from './log-feed.js';

/** One pino line as the logger writes it. */
const line = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ level, time: 1_795_000_000_000, module: 'http', msg, ...extra })}\n`;

describe('LogFeed: entries as the existing dashboard reads them (docs/dashboard.md §4)', () => {
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

describe("LogFeed: the bot's own lines (write, destination)", () => {
  const AT = 1_795_000_000_000;
  const ISO = '2026-11-18T11:06:40.000Z';

  it.each([
    [10, 'DEBUG'],
    [30, 'INFO'],
    [40, 'WARNING'],
    [50, 'ERROR'],
    [60, 'CRITICAL'],
    ['trace', 'DEBUG'],
    ['debug', 'DEBUG'],
    ['info', 'INFO'],
    ['warn', 'WARNING'],
    ['Warning', 'WARNING'],
    ['error', 'ERROR'],
    ['fatal', 'CRITICAL'],
    ['CRITICAL', 'CRITICAL'],
    ['loud', 'INFO'],
    [undefined, 'INFO'],
  ] as const)('write: level %s is %s', (level, expected) => {
    const feed = new LogFeed(500, AT);
    feed.write({ level, message: 'x', time: AT });
    expect(feed.recent(1)).toEqual([{ id: `${AT}_000000000001`, timestamp: ISO, level: expected, module: 'bot', message: 'x' }]);
  });

  it('write: module and message as given (message before msg), the time as a number or a date string', () => {
    const feed = new LogFeed(500, AT);
    feed.write({ module: 'chat', message: 'from message', msg: 'from msg', time: AT });
    feed.write({ msg: 'from msg', time: '2026-11-18T12:06:40+01:00' });
    expect(feed.recent(2)).toEqual([
      { id: `${AT}_000000000001`, timestamp: ISO, level: 'INFO', module: 'chat', message: 'from message' },
      { id: `${AT}_000000000002`, timestamp: ISO, level: 'INFO', module: 'bot', message: 'from msg' },
    ]);
  });

  it('write: without a time, or with one that is none, the entry is dated now', () => {
    vi.useFakeTimers({ now: AT, toFake: ['Date'] });
    try {
      const feed = new LogFeed(500, AT);
      for (const time of [undefined, 'yesterday', Number.NaN, 1e300]) feed.write({ message: 'x', ...(time === undefined ? {} : { time }) });
      expect(feed.recent(10).map((entry) => entry.timestamp)).toEqual([ISO, ISO, ISO, ISO]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('write: junk is dropped without a throw and takes no id', () => {
    const feed = new LogFeed(500, AT);
    const junk: unknown[] = [
      null,
      undefined,
      'text',
      42,
      [],
      [{ message: 'x' }],
      {},
      { message: '' },
      { message: '   ' },
      { message: 5 },
      { msg: {} },
    ];
    for (const line of junk) expect(() => feed.write(line as never)).not.toThrow();
    expect(feed.recent(500)).toEqual([]);
    feed.write({ message: 'kept', time: AT });
    expect(feed.recent(500).map((entry) => entry.id)).toEqual([`${AT}_000000000001`]);
  });

  it("a real pino logger over destination(): its lines normalised, its children's module kept, names as levels too", () => {
    const feed = new LogFeed(500, AT);
    const logger = pino({ base: undefined, timestamp: () => `,"time":${AT}` }, feed.destination('plugins'));
    logger.warn('disk almost full');
    logger.child({ module: 'chat' }).error(new Error('session lost'));
    logger.info({ only: 'fields' });
    const named = pino({ base: undefined, formatters: { level: (label) => ({ level: label }) } }, feed.destination());
    named.fatal('named level');
    expect(feed.recent(500)).toEqual([
      { id: `${AT}_000000000001`, timestamp: ISO, level: 'WARNING', module: 'plugins', message: 'disk almost full' },
      { id: `${AT}_000000000002`, timestamp: ISO, level: 'ERROR', module: 'chat', message: 'session lost' },
      // A line without a message is nothing the dashboard can show.
      expect.objectContaining({ level: 'CRITICAL', module: 'bot', message: 'named level' }),
    ]);
  });

  it("the server's lines and the bot's share one order of ids; live entries are the snapshot's", () => {
    const feed = new LogFeed(500, AT);
    const live: LogEntry[] = [];
    feed.stream.write(line(30, 'server before'));
    feed.subscribe((entry) => live.push(entry));
    const bot = feed.destination('plugins');
    for (let i = 0; i < 4; i++) {
      feed.stream.write(line(30, `server ${i}`));
      feed.write({ message: `written ${i}`, time: AT });
      bot.write(`${JSON.stringify({ level: 30, time: AT, msg: `destination ${i}` })}\n`);
    }
    bot.write('not json\n');
    const recent = feed.recent(500);
    expect(recent.slice(1)).toEqual(live);
    expect(live.map((entry) => `${entry.module}: ${entry.message}`).slice(0, 3)).toEqual([
      'http: server 0',
      'bot: written 0',
      'plugins: destination 0',
    ]);
    const ids = recent.map((entry) => entry.id);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(13);
  });
});

describe("LogFeed behind the channel: the bot's lines in the dashboard's logs/main", () => {
  it('appear in the snapshot and as live entries, with the ids the feed gave them', () => {
    const feed = new LogFeed(500, 1_795_000_000_000);
    const hub = new WsHub({ logs: feed, logger: pino({ enabled: false }), now: () => 0, newConnectionId: () => 'c1' });
    feed.write({ level: 'info', module: 'chat', message: 'bot started', time: 1_795_000_000_000 });
    pino({ base: undefined }, feed.destination('plugins')).warn('plugin slow');

    const sent: Array<{ op: string; event?: string; data?: unknown }> = [];
    const socket = { readyState: 1, send: (text: string) => sent.push(JSON.parse(text)), close: () => undefined } as unknown as WSContext;
    const events = hub.events({ kind: 'token', session: 's', status: { tokenSource: 'configured', requiresCustomToken: false } });
    events.onOpen?.(new Event('open'), socket);
    events.onMessage?.(new MessageEvent('message', { data: '{"op":"subscribe","id":1,"domain":"logs","topic":"main"}' }), socket);
    const snapshot = sent.find((message) => message.event === 'snapshot')?.data as { entries: LogEntry[] };
    expect(snapshot.entries.map(({ module, level, message }) => ({ module, level, message }))).toEqual([
      { module: 'chat', level: 'INFO', message: 'bot started' },
      { module: 'plugins', level: 'WARNING', message: 'plugin slow' },
    ]);
    expect(snapshot.entries).toEqual(feed.recent(100));

    feed.write({ level: 50, message: 'plugin crashed' });
    const entry = sent.filter((message) => message.event === 'entry').map((message) => (message.data as { entry: LogEntry }).entry);
    expect(entry).toEqual([
      expect.objectContaining({ id: '1795000000000_000000000003', level: 'ERROR', module: 'bot', message: 'plugin crashed' }),
    ]);
  });
});
