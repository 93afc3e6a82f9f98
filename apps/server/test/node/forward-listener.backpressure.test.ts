import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startInProcessServer, type InProcessServer } from '../harness/processes/in-process-server.js';
import { appListener, withForwardShortcut } from '@webui/assembly/node';

/**
 * The Node fast path holds a bounded amount of a forwarded answer whatever the caller does: a caller that stops reading
 * pauses the upstream (its writes stall), and reading again resumes it to the last byte.
 */

const MiB = 1024 * 1024;
const TOTAL = 64 * MiB;
/** What may sit between the upstream and a caller that reads nothing: socket buffers both ways and a chunk or two. */
const HELD_AT_MOST = 16 * MiB;
/** How long the upstream's writes must wait for a drain before it counts as stalled (a liveness check, not a timing target). */
const STALLED_MS = 500;

interface Upstream {
  server: Server;
  port: number;
  written: number;
  /** When the upstream began waiting for a drain that has not come yet, or undefined while it writes. */
  waitingSince: number | undefined;
}

async function startWritingUpstream(): Promise<Upstream> {
  const upstream: Upstream = { server: createServer(), port: 0, written: 0, waitingSince: undefined };
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  upstream.server.on('request', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': TOTAL });
    while (upstream.written < TOTAL && !res.destroyed) {
      upstream.written += chunk.length;
      if (res.write(chunk)) continue;
      upstream.waitingSince = performance.now();
      await Promise.race([once(res, 'drain'), once(res, 'close')]);
      upstream.waitingSince = undefined;
    }
    res.end();
  });
  upstream.server.listen(0, '127.0.0.1');
  await once(upstream.server, 'listening');
  upstream.port = (upstream.server.address() as AddressInfo).port;
  return upstream;
}

let upstream: Upstream;
let webui: InProcessServer;
let fast: Server;

beforeAll(async () => {
  upstream = await startWritingUpstream();
  const config = ['[webui.upstream]', `url = "http://127.0.0.1:${upstream.port}"`, ''].join('\n');
  webui = await startInProcessServer(7, undefined, { config });
  const shortcut = webui.running.webui.forwardShortcut();
  if (!shortcut) throw new Error('no forward shortcut');
  fast = createServer(withForwardShortcut(shortcut, appListener(webui.running.webui.app.fetch)).listener);
  fast.listen(0, '127.0.0.1');
  await once(fast, 'listening');
});

afterAll(async () => {
  fast?.closeAllConnections();
  await new Promise((resolve) => fast?.close(resolve));
  await webui?.close();
  upstream?.server.closeAllConnections();
  upstream?.server.close();
});

describe('a forwarded download on the Node fast path', () => {
  it('a caller that stops reading stalls the upstream with a bounded amount in between; reading again gets every byte', async () => {
    const socket = connect({ port: (fast.address() as AddressInfo).port, host: '127.0.0.1' });
    socket.pause();
    socket.write(
      `GET /api/webui/download HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nCookie: bot_session=${webui.token}\r\nConnection: close\r\n\r\n`,
    );
    // The caller reads nothing: the upstream must come to wait on a drain that does not come.
    await vi.waitFor(
      () => {
        expect(upstream.written, 'the server kept taking the answer from a caller that reads nothing').toBeLessThan(TOTAL);
        expect(upstream.waitingSince !== undefined && performance.now() - upstream.waitingSince > STALLED_MS).toBe(true);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(upstream.written).toBeLessThanOrEqual(HELD_AT_MOST);

    let head = '';
    let body = 0;
    socket.on('data', (chunk: Buffer) => {
      if (head.endsWith('\r\n\r\n')) return void (body += chunk.length);
      const text = chunk.toString('latin1');
      const end = (head + text).indexOf('\r\n\r\n');
      if (end === -1) return void (head += text);
      body += chunk.length - (end + 4 - head.length);
      head = (head + text).slice(0, end + 4);
    });
    socket.resume();
    await once(socket, 'end');
    expect(head.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    expect(body).toBe(TOTAL);
    expect(upstream.written).toBe(TOTAL);
  });
});
