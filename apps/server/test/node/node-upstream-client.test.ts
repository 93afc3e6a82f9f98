import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bundleChildScript } from '../harness/processes/child-script.js';
import { nodeUpstreamClient } from '@webui/gateway/node';

const MiB = 1024 * 1024;

let server: Server | undefined;
let closeClient: (() => unknown) | undefined;
afterEach(async () => {
  await closeClient?.();
  closeClient = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A backend answering with `handle`; returns the transport of a client pointed at it. */
async function backend(handle: (req: IncomingMessage, res: ServerResponse) => void, relayed?: (bytes: number) => void) {
  server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = nodeUpstreamClient({ origin }, { relayed });
  closeClient = client.close;
  return { origin, transport: client.transport };
}

/** `total` bytes in fresh 64 KiB chunks, made only as the reader pulls. */
function generatedBody(total: number): ReadableStream<Uint8Array> {
  let made = 0;
  return new ReadableStream({
    pull(controller) {
      if (made >= total) return controller.close();
      controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
      made += 64 * 1024;
    },
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'webui-upstream-client-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The client streaming `total` bytes to a backend of its own, in a process of its own: test files share their worker, so
 * the worker's buffers count what other files left behind. Answers what the backend answered and the array buffers the
 * process held more when the backend had it all than before (the collector run first, so only what is still referenced:
 * undici's fetch, which tees the body, holds all 64 MiB here).
 */
async function uploadInChild(total: number): Promise<{ answered: string; held: number }> {
  const script = join(scratch, 'upload.mjs');
  await bundleChildScript(
    `
      import { once } from 'node:events';
      import { createServer } from 'node:http';
      import { nodeUpstreamClient } from '@webui/gateway/node';
      const total = Number(process.argv[2]);
      // Twice: a collection frees dead ArrayBuffers on a background sweeper, which the next one waits for (once, 10 to 46 MB
      // of the upload still counted in 3 of 8 runs of a fresh process).
      const heldBuffers = () => (globalThis.gc(), globalThis.gc(), process.memoryUsage().arrayBuffers);
      let heldAtEnd = 0;
      const server = createServer((req, res) => {
        let received = 0;
        req.on('data', (chunk) => (received += chunk.length));
        // Measured before answering: the request, and anything it keeps, is still alive.
        req.on('end', () => {
          heldAtEnd = heldBuffers();
          res.end(String(received));
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const origin = 'http://127.0.0.1:' + server.address().port;
      const client = nodeUpstreamClient({ origin });
      const before = heldBuffers();
      let made = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (made >= total) return controller.close();
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
          made += 64 * 1024;
        },
      });
      const answer = await client.transport(new Request(origin + '/upload', { method: 'POST', body, duplex: 'half' }));
      const answered = await answer.text();
      await client.close();
      server.close();
      process.stdout.write(JSON.stringify({ answered, held: heldAtEnd - before }));
    `,
    script,
  );
  const child = spawn(process.execPath, ['--expose-gc', script, String(total)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the upload process exited with ${code}: ${stderr}`);
  return JSON.parse(stdout) as { answered: string; held: number };
}

describe('nodeUpstreamClient transport', () => {
  it('sends method, path, query, headers and a streamed body; answers status, every Set-Cookie and the streamed body', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const { origin, transport } = await backend((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        res.writeHead(201, { 'content-type': 'text/plain', 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'] }).end('created');
      });
    });
    const answer = await transport(
      new Request(`${origin}/api/x?y=1`, {
        method: 'PUT',
        headers: { 'x-test': 'yes', cookie: 'k=v' },
        body: generatedBody(3 * 64 * 1024),
        duplex: 'half',
      } as RequestInit),
    );
    expect(answer.status).toBe(201);
    expect(answer.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(await answer.text()).toBe('created');
    expect(seen).toMatchObject({ method: 'PUT', url: '/api/x?y=1', body: 'a'.repeat(3 * 64 * 1024) });
    expect(seen.headers).toMatchObject({ 'x-test': 'yes', cookie: 'k=v', 'accept-encoding': 'identity' });
  });

  it('tells `relayed` of every chunk of an upload as it goes (the server collects its read buffers by it), the body whole', async () => {
    const told: number[] = [];
    let received = 0;
    const { origin, transport } = await backend(
      (req, res) => {
        req.on('data', (chunk: Buffer) => (received += chunk.length));
        req.on('end', () => res.end('ok'));
      },
      (bytes) => told.push(bytes),
    );
    const total = 40 * 64 * 1024;
    const answer = await transport(
      new Request(`${origin}/upload`, { method: 'POST', body: generatedBody(total), duplex: 'half' } as RequestInit),
    );
    expect(await answer.text()).toBe('ok');
    expect(received).toBe(total);
    expect(told).toHaveLength(40);
    expect(told.reduce((sum, bytes) => sum + bytes, 0)).toBe(total);
  });

  it('a 204 and a HEAD answer without a body', async () => {
    const { origin, transport } = await backend((req, res) => {
      if (req.url === '/none') res.writeHead(204).end();
      else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello');
    });
    const none = await transport(new Request(`${origin}/none`));
    expect([none.status, none.body]).toEqual([204, null]);
    const head = await transport(new Request(`${origin}/x`, { method: 'HEAD' }));
    expect([head.status, head.body, head.headers.get('content-length')]).toEqual([200, null, '5']);
  });

  it('a streamed 64 MiB upload is not held: when the backend has all of it, the process holds far less than that', async () => {
    const total = 64 * MiB;
    const { answered, held } = await uploadInChild(total);
    expect(answered).toBe(String(total));
    expect(held).toBeLessThan(16 * MiB);
  });

  it("an answer whose body is cancelled unread (the forwarder's 401) does not throw later, and the pool serves the next request", async () => {
    const { origin, transport } = await backend((req, res) => {
      if (req.url === '/refused') res.writeHead(401, { 'content-type': 'text/plain' }).end('x'.repeat(MiB));
      else res.end('fine');
    });
    for (let round = 0; round < 3; round++) {
      const refused = await transport(new Request(`${origin}/refused`));
      expect(refused.status).toBe(401);
      await refused.body?.cancel();
      expect(await (await transport(new Request(`${origin}/next`))).text()).toBe('fine');
    }
  });

  it('the caller aborting mid-answer closes the upstream connection', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    const { origin, transport } = await backend((_req, res) => {
      closed = once(res, 'close');
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n');
    });
    const abort = new AbortController();
    const answer = await transport(new Request(`${origin}/events`, { signal: abort.signal }));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    abort.abort();
    await closed;
    await expect(reader.read()).rejects.toThrow();
  });

  it('a backend that is not listening: a TypeError whose cause carries the system code, as fetch rejects', async () => {
    const { origin, transport } = await backend((_req, res) => res.end());
    server?.close();
    await once(server as Server, 'close');
    const failure = await transport(new Request(`${origin}/x`)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
