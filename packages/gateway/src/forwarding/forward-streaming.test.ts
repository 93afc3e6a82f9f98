import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, DEFAULT_HOST, DEFAULT_PEER } from '../testing/gateway-test-app.js';

const MiB = 1024 * 1024;
const TOTAL = 50 * MiB;
const CHUNK = new Uint8Array(64 * 1024).fill(0x61);
// The most either side runs ahead of the other: if any hop held the whole body, the other side would wait forever.
const WINDOW = 1 * MiB;

/** A byte count that can be waited on: resolves once it reaches `bytes`. */
class Counter {
  bytes = 0;
  private waiters: Array<{ bytes: number; resolve: () => void }> = [];
  add(bytes: number): void {
    this.bytes += bytes;
    this.waiters = this.waiters.filter((waiter) => (waiter.bytes <= this.bytes ? (waiter.resolve(), false) : true));
  }
  reached(bytes: number): Promise<void> {
    if (bytes <= this.bytes) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ bytes, resolve }));
  }
}

/** The bot's backend as a real HTTP server: counts what it receives, sends what the client reads, tells when a request broke off. */
class UpstreamServer {
  readonly received = new Counter();
  readonly clientRead = new Counter();
  /** How many bytes the client had sent when the upstream got its first one. */
  sentAtFirstByte: number | null = null;
  sent = 0;
  readonly closedEarly: Promise<void>;
  private markClosedEarly: () => void = () => undefined;
  private server: Server | undefined;

  constructor() {
    this.closedEarly = new Promise((resolve) => (this.markClosedEarly = resolve));
  }

  async listen(): Promise<string> {
    // A request broken off mid-way is what some tests do: the handler then just stops.
    this.server = createServer((req, res) => void this.answer(req, res).catch(() => undefined));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('close', () => {
      if (!res.writableFinished) this.markClosedEarly();
    });
    if (req.method === 'POST') {
      req.on('data', (chunk: Buffer) => {
        this.sentAtFirstByte ??= this.sent;
        this.received.add(chunk.length);
      });
      req.on('aborted', () => this.markClosedEarly());
      await once(req, 'end');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes: this.received.bytes }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    for (let written = 0; written < TOTAL && !res.destroyed; written += CHUNK.length) {
      // The window bounds what the socket may have to buffer, so write's backpressure signal is not needed.
      await this.clientRead.reached(written - WINDOW);
      res.write(CHUNK);
    }
    res.end();
  }
}

let upstream: UpstreamServer;
afterEach(() => upstream.close());

async function gateway() {
  upstream = new UpstreamServer();
  const origin = await upstream.listen();
  const t = await createTestApp({
    upstream: { origin, paths: ['/api/files'], publicPaths: [], headers: {}, timeoutMs: 30_000, transport: (request) => fetch(request) },
  });
  const cookie = await t.login();
  /** A request from the caller, straight into the app, its body a stream when given. */
  const send = (path: string, init: { method?: string; body?: ReadableStream<Uint8Array>; signal?: AbortSignal } = {}) =>
    Promise.resolve(
      t.app.request(
        `http://${DEFAULT_HOST}${path}`,
        {
          method: init.method ?? 'GET',
          headers: { host: DEFAULT_HOST, cookie: `bot_session=${cookie}`, 'content-type': 'application/octet-stream' },
          ...(init.body ? { body: init.body, duplex: 'half' } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        } as RequestInit,
        { peer: DEFAULT_PEER },
      ),
    );
  return { t, send };
}

/** A body of `total` bytes that sends each chunk only once the upstream has the bytes sent before it, less the window. */
function lockstepBody(total: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (upstream.sent >= total) return controller.close();
        await upstream.received.reached(upstream.sent - WINDOW);
        controller.enqueue(CHUNK);
        upstream.sent += CHUNK.length;
      },
    },
    { highWaterMark: 0 },
  );
}

describe('bodies stream through the gateway both ways, never held whole (a real upstream over TCP)', () => {
  it('a 50 MB upload: the upstream gets its first bytes long before the caller has sent the rest, and all of them', async () => {
    const { send } = await gateway();
    const res = await send('/api/files/upload', { method: 'POST', body: lockstepBody(TOTAL) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bytes: TOTAL });
    expect(upstream.sentAtFirstByte).not.toBeNull();
    // The lockstep lets the caller send one window and one chunk before the upstream has anything.
    expect(upstream.sentAtFirstByte as number).toBeLessThanOrEqual(WINDOW + CHUNK.length);
  });

  it('a 50 MB download: the caller reads while the upstream is still writing, and gets every byte', async () => {
    const { send } = await gateway();
    const res = await send('/api/files/download');
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) upstream.clientRead.add(part.value.length);
    expect(upstream.clientRead.bytes).toBe(TOTAL);
  });

  it('a caller that goes away mid-upload breaks off the upstream request', async () => {
    const { send } = await gateway();
    const caller = new AbortController();
    const answered = send('/api/files/upload', { method: 'POST', body: lockstepBody(TOTAL), signal: caller.signal });
    await upstream.received.reached(2 * MiB);
    caller.abort();
    await upstream.closedEarly;
    expect(upstream.received.bytes).toBeLessThan(TOTAL);
    await answered.catch(() => undefined);
  });

  it('a caller that stops reading a download breaks off the upstream answer', async () => {
    const { send } = await gateway();
    const res = await send('/api/files/download');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    upstream.clientRead.add(first.value?.length ?? 0);
    await reader.cancel();
    await upstream.closedEarly;
    expect(upstream.clientRead.bytes).toBeLessThan(TOTAL);
  });
});
