import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.js';
import { LogFeed } from './log-feed.js';

/** A destination that keeps what it is given, a terminal or not. */
function destination(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, write: (text: string) => written.push(text) };
}

// ESC [ ... m: a colour code.
const COLOUR = /\u001b\[[0-9;]*m/;

describe('createLogger', () => {
  it('writes readable coloured lines to a terminal, each one at once, with the module leading the message', () => {
    const out = destination(true);
    const logger = createLogger('info', new LogFeed(), out);
    logger.child({ module: 'http' }).info({ status: 401 }, 'refused');
    // Written before the next statement: nothing queued in a worker or a stream pipeline.
    expect(out.written).toHaveLength(1);
    const line = out.written[0] as string;
    expect(line).toMatch(COLOUR);
    const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: http: refused \{"status":401\}\n$/);
    expect(() => JSON.parse(line)).toThrow();
  });

  it('writes JSON lines when the output is not a terminal', () => {
    const out = destination(false);
    createLogger('info', new LogFeed(), out).info({ status: 200 }, 'fine');
    expect(JSON.parse(out.written[0] as string)).toMatchObject({ level: 30, status: 200, msg: 'fine' });
  });

  it('follows log_format over the terminal check: "json" on a terminal, "pretty" (without colour) into a pipe', () => {
    const tty = destination(true);
    createLogger('info', new LogFeed(), tty, 'json').info('as json');
    expect(JSON.parse(tty.written[0] as string)).toMatchObject({ msg: 'as json' });
    const pipe = destination(false);
    createLogger('info', new LogFeed(), pipe, 'pretty').info('as text');
    expect(pipe.written[0]).toMatch(/^\[[\d:.]+\] INFO: as text\n$/);
    expect(pipe.written[0]).not.toMatch(COLOUR);
  });

  it('redacts secrets in readable lines as in JSON ones, and the feed keeps JSON entries either way', () => {
    for (const format of ['pretty', 'json'] as const) {
      const out = destination(true);
      const feed = new LogFeed();
      createLogger('info', feed, out, format).info({ token: 'Secret-Token-1!', headers: { cookie: 'bot_session=abc' } }, 'checked');
      expect(out.written.join('')).not.toMatch(/Secret-Token-1!|bot_session=abc/);
      expect(out.written.join('')).toContain('[redacted]');
      expect(feed.recent(1)).toEqual([expect.objectContaining({ level: 'INFO', message: 'checked' })]);
    }
  });

  it('keeps the level: lines below it are written nowhere', () => {
    const out = destination(false);
    const logger = createLogger('warn', new LogFeed(), out, 'pretty');
    logger.info('quiet');
    logger.warn('loud');
    expect(out.written).toHaveLength(1);
    expect(out.written[0]).toMatch(/WARN: loud/);
  });
});
