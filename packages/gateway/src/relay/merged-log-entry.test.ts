import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logTimestampMs } from '@webui/http-hono';
import { botEntriesOf, botEntryOf, dashboardLevelOf, mergeByTime, ownEntryOf, type MergedLogEntry } from './merged-log-entry.js';

describe('dashboardLevelOf', () => {
  it.each([
    ['DEBUG', 'DEBUG'],
    ['info', 'INFO'],
    [' Warning ', 'WARNING'],
    ['WARN', 'WARNING'],
    ['warn', 'WARNING'],
    ['error', 'ERROR'],
    ['CRITICAL', 'CRITICAL'],
    ['FATAL', 'CRITICAL'],
    ['fatal', 'CRITICAL'],
    ['SUCCESS', 'INFO'],
    ['TRACE', 'INFO'],
    ['', 'INFO'],
    [30, 'INFO'],
    [null, 'INFO'],
    [undefined, 'INFO'],
  ])('%j -> %s', (level, expected) => {
    expect(dashboardLevelOf(level)).toBe(expected);
  });
});

describe('botEntryOf', () => {
  const good = { id: '1735732800000_1', timestamp: '2025-01-01 20:00:00', level: 'INFO', module: 'chat', message: 'hello' };

  it('prefixes the id with bot-, keeps module and message, and passes the display hints of the right type only', () => {
    expect(
      botEntryOf({
        ...good,
        moduleDisplayName: '聊天',
        moduleColor: '#00ff00',
        moduleBold: false,
        moduleBackgroundColor: '#000',
        extra: 1,
      }),
    ).toEqual({
      id: 'bot-1735732800000_1',
      timestamp: '2025-01-01 20:00:00',
      level: 'INFO',
      module: 'chat',
      message: 'hello',
      moduleDisplayName: '聊天',
      moduleColor: '#00ff00',
      moduleBold: false,
      moduleBackgroundColor: '#000',
    });
    expect(botEntryOf({ ...good, moduleDisplayName: 5, moduleColor: null, moduleBold: 'yes' })).toEqual({
      ...good,
      id: 'bot-1735732800000_1',
    });
  });

  it('a numeric id is kept as text; a missing module is empty; a missing level is INFO', () => {
    expect(botEntryOf({ id: 7, timestamp: 't', message: 'm' })).toEqual({
      id: 'bot-7',
      timestamp: 't',
      level: 'INFO',
      module: '',
      message: 'm',
    });
  });

  it.each([
    ['not an object', 'line'],
    ['null', null],
    ['an array', [good]],
    ['no id', { ...good, id: undefined }],
    ['an empty id', { ...good, id: '' }],
    ['an object id', { ...good, id: { a: 1 } }],
    ['a timestamp not a string', { ...good, timestamp: 1735732800 }],
    ['no timestamp', { ...good, timestamp: undefined }],
    ['no message', { ...good, message: undefined }],
    ['a message not a string', { ...good, message: ['x'] }],
    ['a module not a string', { ...good, module: 3 }],
  ])('%s -> dropped', (_name, raw) => {
    expect(botEntryOf(raw)).toBeNull();
  });

  it('botEntriesOf drops the malformed ones and reads a non-array as none', () => {
    expect(botEntriesOf([good, null, { ...good, id: 'x', message: 1 }, { ...good, id: 2 }]).map((entry) => entry.id)).toEqual([
      'bot-1735732800000_1',
      'bot-2',
    ]);
    expect(botEntriesOf({ entries: [good] })).toEqual([]);
    expect(botEntriesOf(undefined)).toEqual([]);
  });
});

describe('ownEntryOf', () => {
  it('prefixes the id with webui- and the module with webui.', () => {
    const entry = { id: '1_000000000001', timestamp: '2025-01-01T00:00:00.000Z', level: 'INFO' as const, module: 'http', message: 'GET /' };
    expect(ownEntryOf(entry)).toEqual({ ...entry, id: 'webui-1_000000000001', module: 'gateway.http' });
    expect(ownEntryOf({ ...entry, module: '' }).module).toBe('gateway');
  });
});

const NOW = Date.UTC(2025, 5, 1);

describe('mergeByTime', () => {
  const entry = (id: string, timestamp: string): MergedLogEntry => ({ id, timestamp, level: 'INFO', module: 'm', message: id });

  it('orders by time across both lists, ours first on a tie, and keeps the last count', () => {
    const ours = [entry('o1', '2025-01-01T12:00:01Z'), entry('o3', '2025-01-01T12:00:03Z')];
    const bots = [entry('b1', '2025-01-01T20:00:01+08:00'), entry('b2', '2025-01-01T12:00:02Z'), entry('b4', '2025-01-01T12:00:04Z')];
    expect(mergeByTime(ours, bots, 10, NOW).map((item) => item.id)).toEqual(['o1', 'b1', 'b2', 'o3', 'b4']);
    expect(mergeByTime(ours, bots, 2, NOW).map((item) => item.id)).toEqual(['o3', 'b4']);
    expect(mergeByTime(ours, bots, 0, NOW)).toEqual([]);
  });

  it("the bot's year-less snapshot times and zone-less live times sort among ours (this host's local time)", () => {
    const local = (month: number, day: number, hour: number) => new Date(2025, month - 1, day, hour).toISOString();
    const ours = [entry('o1', local(5, 31, 10)), entry('o3', local(5, 31, 12))];
    const bots = [entry('b2', '05-31 11:00:00'), entry('b4', '2025-05-31 13:00:00')];
    expect(mergeByTime(ours, bots, 10, new Date(2025, 4, 31, 14).getTime()).map((item) => item.id)).toEqual(['o1', 'b2', 'o3', 'b4']);
  });

  it('an entry whose time cannot be read stays after the one before it in its own list', () => {
    const ours = [entry('o1', '2025-01-01T12:00:01Z'), entry('o5', '2025-01-01T12:00:05Z')];
    const bots = [
      entry('bx', 'garbage'),
      entry('b2', '2025-01-01T12:00:02Z'),
      entry('by', 'also garbage'),
      entry('b6', '2025-01-01T12:00:06Z'),
    ];
    expect(mergeByTime(ours, bots, 10, NOW).map((item) => item.id)).toEqual(['bx', 'o1', 'b2', 'by', 'o5', 'b6']);
  });

  it('property: the result is the last `count` of all entries, in time order, each list keeping its own order', () => {
    const second = fc.integer({ min: 0, max: 59 });
    const list = (prefix: string) =>
      fc
        .array(second, { maxLength: 30 })
        .map((seconds) =>
          seconds.sort((a, b) => a - b).map((s, i) => entry(`${prefix}${i}`, `2025-01-01T12:00:${String(s).padStart(2, '0')}Z`)),
        );
    fc.assert(
      fc.property(list('o'), list('b'), fc.integer({ min: 0, max: 70 }), (ours, bots, count) => {
        const merged = mergeByTime(ours, bots, count, NOW);
        expect(merged).toHaveLength(Math.min(count, ours.length + bots.length));
        const times = merged.map((item) => logTimestampMs(item.timestamp, NOW) ?? 0);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        for (const prefix of ['o', 'b']) {
          const ids = merged.filter((item) => item.id.startsWith(prefix)).map((item) => Number(item.id.slice(1)));
          expect(ids).toEqual([...ids].sort((a, b) => a - b));
        }
        const all = [...ours, ...bots].map((item) => logTimestampMs(item.timestamp, NOW) ?? 0).sort((a, b) => a - b);
        expect(times).toEqual(count === 0 ? [] : all.slice(-count));
      }),
      { seed: 33, numRuns: 300 },
    );
  });
});
