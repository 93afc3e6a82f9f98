import type { SecurityEventSink } from '@webui/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { holdAnswerUntilAudited } from './audit-hold.js';

/** A sink that writes in groups: written() waits until the test lets the group go. */
function groupedSink() {
  let release: () => void = () => undefined;
  let waiting: Promise<void> | null = null;
  const sink: SecurityEventSink = {
    record: () => {
      waiting ??= new Promise<void>((resolve) => (release = resolve));
    },
    written: () => waiting,
  };
  return { sink, release: () => release() };
}

describe('holdAnswerUntilAudited', () => {
  it('is no step for a sink that writes at once', () => {
    expect(holdAnswerUntilAudited({ record: () => undefined })).toBeUndefined();
  });

  it('holds an answer, a refusal included, until the audit line is written', async () => {
    const { sink, release } = groupedSink();
    const hold = holdAnswerUntilAudited(sink);
    if (!hold) throw new Error('no hold for a grouped sink');
    const app = new Hono<WebuiEnv>().use(hold).get('/refused', (c) => {
      sink.record({ event: 'request_refused', address: '127.0.0.1', via: 'api', reason: 'host_not_allowed', count: 1 });
      return c.json({ code: 'refused' }, 403);
    });
    let answered = false;
    const answer = Promise.resolve(app.request('/refused')).then((res) => {
      answered = true;
      return res;
    });
    // Several turns of the event loop: nothing but the audit write can release the answer.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect((await answer).status).toBe(403);
  });

  it('lets an answer through at once when no line waits', async () => {
    const { sink } = groupedSink();
    const hold = holdAnswerUntilAudited(sink);
    if (!hold) throw new Error('no hold for a grouped sink');
    const app = new Hono<WebuiEnv>().use(hold).get('/quiet', (c) => c.json({ ok: true }));
    expect((await app.request('/quiet')).status).toBe(200);
  });
});
