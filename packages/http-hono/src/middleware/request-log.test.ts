import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { RecordingLogger } from '../testing/test-app.js';
import { requestLog } from './request-log.js';

function appWith(logger: RecordingLogger) {
  let clock = 100;
  const log = requestLog(logger, () => (clock += 5));
  if (!log) throw new Error('no request log with debug on');
  return new Hono<WebuiEnv>()
    .use((c, next) => {
      c.set('clientIp', '127.0.0.5');
      return next();
    })
    .use(log)
    .use('/guarded', (c) => Promise.resolve(c.json({ code: 'refused' }, 401)))
    .get('/guarded', (c) => c.json({ never: true }))
    .get('/open', (c) => c.json({ ok: true }));
}

describe('requestLog', () => {
  it('logs method, path without the query, status, time and address', async () => {
    const logger = new RecordingLogger();
    await appWith(logger).request('/open?token=ticket');
    expect(logger.calls).toEqual([
      { level: 'debug', message: 'request', fields: { method: 'GET', path: '/open', status: 200, ms: 5, ip: '127.0.0.5' } },
    ]);
  });

  it("logs the status of a later step's refusal", async () => {
    const logger = new RecordingLogger();
    await appWith(logger).request('/guarded', { method: 'GET' });
    expect(logger.calls).toEqual([
      { level: 'debug', message: 'request', fields: expect.objectContaining({ path: '/guarded', status: 401 }) },
    ]);
  });

  it('is no step when the logger says debug is off', () => {
    expect(requestLog(new RecordingLogger(false), () => 0)).toBeUndefined();
  });
});
