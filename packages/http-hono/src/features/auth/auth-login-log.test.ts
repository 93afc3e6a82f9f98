import { describe, expect, it } from 'vitest';
import { LOGIN_LOG_WINDOW_MS } from '@webui/core/testing';
import { createTestApp, type TestApp } from '../../testing/test-app.js';

const loginLines = (t: TestApp, level: 'info' | 'debug') =>
  t.logger
    .at(level)
    .filter((call) => call.message === 'login succeeded')
    .map((call) => call.fields);

// The LoginLog itself (its window, its bound) is tested in the core, beside it.
describe('successful logins in the log', () => {
  it(
    'logs the first login of an address at info, repeats within the window at debug, and counts them into the ' + 'next info line',
    async () => {
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
    },
  );

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
});
