import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readIncomingBody } from './incoming-body.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Sends `chunks` to a server that reads the body with `maxBytes`; resolves with what the reader gave. */
async function readThrough(
  chunks: Buffer[],
  maxBytes: number,
  headers: Record<string, string> = {},
): Promise<{ text: string | null } | { error: string }> {
  let outcome: Promise<{ text: string | null } | { error: string }> | undefined;
  server = createServer((incoming: IncomingMessage, res) => {
    outcome = readIncomingBody(incoming, maxBytes).then(
      (text) => ({ text }),
      (error: Error) => ({ error: error.message }),
    );
    void outcome.then(() => res.end('ok'));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
  if (!outcome) throw new Error('the server saw no request');
  return outcome;
}

describe('readIncomingBody (the readBody speed-up of the Node runtime port)', () => {
  it('reads a Content-Length body as UTF-8 text', async () => {
    const body = Buffer.from('{"token":"ünïcödé;,"}');
    expect(await readThrough([body], 16_384, { 'content-length': String(body.length) })).toEqual({ text: '{"token":"ünïcödé;,"}' });
  });

  it('joins a body that arrives in several chunks, split inside a character', async () => {
    const body = Buffer.from('{"token":"ü€"}');
    const chunks = [body.subarray(0, 11), body.subarray(11, 13), body.subarray(13)];
    expect(await readThrough(chunks, 16_384)).toEqual({ text: '{"token":"ü€"}' });
  });

  it('drops a leading BOM, as Request.text() does', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(await readThrough([body], 16_384)).toEqual({ text: '{"a":1}' });
  });

  it('gives an empty string for an empty body', async () => {
    expect(await readThrough([], 16_384, { 'content-length': '0' })).toEqual({ text: '' });
  });

  it('gives null once the body grows past the limit, and accepts exactly the limit', async () => {
    expect(await readThrough([Buffer.alloc(10, 0x61), Buffer.alloc(7, 0x61)], 16)).toEqual({ text: null });
    expect(await readThrough([Buffer.alloc(10, 0x61), Buffer.alloc(6, 0x61)], 16)).toEqual({ text: 'a'.repeat(16) });
  });

  it('takes a body that arrived completely before the read at once, and refuses to read it twice', async () => {
    let outcome: Promise<Array<string | null>> | undefined;
    server = createServer((incoming, res) => {
      outcome = (async () => {
        // Waits until the whole body sits in the stream's buffer, unread.
        await vi.waitFor(() => expect(incoming.complete).toBe(true), { timeout: 5_000, interval: 5 });
        const complete = incoming.complete;
        const first = await readIncomingBody(incoming, 100);
        const second = await readIncomingBody(incoming, 100).then(
          () => 'read again',
          (error: Error) => error.message,
        );
        return [String(complete), first, second];
      })();
      void outcome.then(() => res.end());
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"token":"ü"}' });
    const [complete, first, second] = (await outcome) ?? [];
    expect(complete).toBe('true');
    expect(first).toBe('{"token":"ü"}');
    expect(second).toMatch(/already read/);
  });

  it('rejects a body that was already read', async () => {
    let second: Promise<string> | undefined;
    server = createServer(async (incoming, res) => {
      await readIncomingBody(incoming, 100);
      second = readIncomingBody(incoming, 100).then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      res.end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
    expect(await second).toMatch(/already read/);
  });
});
