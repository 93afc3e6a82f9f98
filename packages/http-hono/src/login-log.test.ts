import { describe, expect, it } from 'vitest';
import { LOGIN_LOG_WINDOW_MS, LoginLog } from './login-log.js';
import { createTestApp, RecordingLogger, type TestApp } from './testing/test-app.js';

const loginLines = (t: TestApp, level: 'info' | 'debug') => t.logger.at(level).filter((call) => call.message === 'login succeeded').map((call) => call.fields);

describe('successful logins in the log', () => {
  it('logs the first login of an address at info, repeats within the window at debug, and counts them into the next info line', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 3; i++) await t.login(t.token, { peer: '127.0.0.7' });
    expect(loginLines(t, 'info')).toEqual([{ ip: '127.0.0.7', tokenSource: 'temporary' }]);
    expect(loginLines(t, 'debug')).toHaveLength(2);

    t.harness.clock.advance(LOGIN_LOG_WINDOW_MS - 1);
    await t.login(t.token, { peer: '127.0.0.7' });
    expect(loginLines(t, 'info')).toHaveLength(1);

    t.harness.clock.advance(1);
    await t.login(t.token, { peer: '127.0.0.7' });
    expect(loginLines(t, 'info')).toEqual([
      { ip: '127.0.0.7', tokenSource: 'temporary' },
      { ip: '127.0.0.7', tokenSource: 'temporary', repeats: 3 },
    ]);
  });

  it('keeps addresses apart: every new address gets its own info line', async () => {
    const t = await createTestApp();
    await t.login(t.token, { peer: '127.0.0.7' });
    await t.login(t.token, { peer: '127.0.0.8' });
    await t.login(t.token, { peer: '127.0.0.7' });
    expect(loginLines(t, 'info').map((fields) => (fields as { ip: string }).ip)).toEqual(['127.0.0.7', '127.0.0.8']);
  });

  it('still logs every failed login and never the token', async () => {
    const t = await createTestApp();
    await t.login(t.token, { peer: '127.0.0.7' });
    await t.verify('Wrong-Token-Value-1', { peer: '127.0.0.7' });
    await t.verify('Wrong-Token-Value-2', { peer: '127.0.0.7' });
    expect(t.logger.at('info').filter((call) => call.message === 'login failed')).toHaveLength(2);
    expect(t.logger.text()).not.toContain(t.token);
  });

  it('remembers at most 10,000 addresses: the oldest is forgotten, so its next login is an info line again', () => {
    const logger = new RecordingLogger();
    const log = new LoginLog(logger, () => 0);
    const ip = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    for (let n = 0; n <= 10_000; n++) log.succeeded(ip(n), 'configured');
    log.succeeded(ip(1), 'configured');
    log.succeeded(ip(0), 'configured');
    const infoIps = logger.at('info').map((call) => (call.fields as { ip: string }).ip);
    expect(infoIps).toHaveLength(10_002);
    expect(infoIps.at(-1)).toBe(ip(0));
    expect(logger.at('debug').map((call) => (call.fields as { ip: string }).ip)).toEqual([ip(1)]);
  });
});
