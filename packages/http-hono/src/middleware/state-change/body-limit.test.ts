import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../../app-env.js';
import { expectErrorBody } from '../../testing/test-app.js';
import { limitBody, MAX_BODY_BYTES, readBodyText } from './body-limit.js';

const app = new Hono<WebuiEnv>().use(limitBody()).all('/echo', async (c) => c.json({ length: (await readBodyText(c))?.length ?? null }));

/** A body without Content-Length: the limit has to count it as it comes. */
function streamed(chunks: Uint8Array[], breakOff = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else if (breakOff) controller.error(new Error('connection reset'));
      else controller.close();
    },
  });
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  app.request('/echo', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('limitBody (docs/decisions/0014-bounded-memory.md)', () => {
  it('passes a body up to 16 KiB to the route', async () => {
    expect(await (await post('x'.repeat(MAX_BODY_BYTES))).json()).toEqual({ length: MAX_BODY_BYTES });
  });

  it('answers 413 for a declared length over the limit, before the body is read', async () => {
    await expectErrorBody(await post('x'.repeat(MAX_BODY_BYTES + 1)), 413, 'payload_too_large');
  });

  it('answers 413 for a streamed body once it grows over the limit', async () => {
    const half = new Uint8Array(MAX_BODY_BYTES / 2 + 1);
    await expectErrorBody(await post(streamed([half, half])), 413, 'payload_too_large');
    expect(await (await post(streamed([half]))).json()).toEqual({ length: half.length });
  });

  it('answers 400 incomplete_body for a streamed body that breaks off', async () => {
    await expectErrorBody(await post(streamed([new Uint8Array(10)], true)), 400, 'incomplete_body');
  });

  it('leaves GET alone', async () => {
    expect((await app.request('/echo')).status).toBe(200);
  });
});
