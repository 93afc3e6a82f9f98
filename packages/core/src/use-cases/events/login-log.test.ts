import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../../testing/recording-sinks.js';
import { LOGIN_LOG_WINDOW_MS, LoginLog } from './login-log.js';

describe('LoginLog', () => {
  it('logs the first login of an address at info, repeats within the window at debug, and counts them into the next info line', () => {
    const logger = new RecordingLogger();
    let now = 0;
    const log = new LoginLog(logger, () => now);
    log.succeeded('127.0.0.7', 'temporary');
    log.succeeded('127.0.0.7', 'temporary');
    now = LOGIN_LOG_WINDOW_MS;
    log.succeeded('127.0.0.7', 'temporary');
    expect(logger.lines).toEqual([
      { level: 'info', fields: { ip: '127.0.0.7', tokenSource: 'temporary' }, message: 'login succeeded' },
      { level: 'debug', fields: { ip: '127.0.0.7', tokenSource: 'temporary' }, message: 'login succeeded' },
      { level: 'info', fields: { ip: '127.0.0.7', tokenSource: 'temporary', repeats: 1 }, message: 'login succeeded' },
    ]);
  });

  it('remembers at most 10,000 addresses: the oldest is forgotten, so its next login is an info line again', () => {
    const logger = new RecordingLogger();
    const log = new LoginLog(logger, () => 0);
    const ip = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    for (let n = 0; n <= 10_000; n++) log.succeeded(ip(n), 'configured');
    log.succeeded(ip(1), 'configured');
    log.succeeded(ip(0), 'configured');
    const infoIps = logger.lines.filter((line) => line.level === 'info').map((line) => (line.fields as { ip: string }).ip);
    expect(infoIps).toHaveLength(10_002);
    expect(infoIps.at(-1)).toBe(ip(0));
    expect(logger.lines.filter((line) => line.level === 'debug').map((line) => (line.fields as { ip: string }).ip)).toEqual([ip(1)]);
  });
});
