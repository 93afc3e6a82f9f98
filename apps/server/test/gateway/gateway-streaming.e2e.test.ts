import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMemory, startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { cleanupServers } from '../harness/processes/server-process.js';
import {
  downloadByteAt,
  startStandInUpstream,
  stopAllStandInUpstreams,
  type RecordedRequest,
  type StandInUpstream,
} from '../harness/stand-in-upstream.js';

/**
 * Forwarded bodies stream both ways through the real server (issue 33, item 2): proven by order, not by time. The upload
 * goes in lockstep (each megabyte is written only once the stand-in has received all but the last WINDOW of them), so a
 * server that held the body would stall it; the download's first chunk reaches the client while the stand-in, which
 * writes only as fast as its reader takes, is still far from done. Then the server's peak RSS, read from /proc, stays flat
 * while bodies three times as big stream through it: what a server holding bodies could not do. (Flat after the first 50 MB, not
 * from before them: Node's V8 lets some 64 MB of released buffers wait for a collection, whatever the body's size.)
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const MB = 1024 * 1024;
const TOTAL = 50 * MB;
/** Megabytes the upload may have in flight (socket buffers on both sides of the server) before the writer waits. */
const WINDOW = 8;
/** Peak RSS growth allowed while a 150 MB body streams each way: far below what holding one would take. */
const MAX_GROWTH = 40 * MB;

/** Opens a request to the server with the operator's cookie; the body is written by the caller. */
function open(gateway: Gateway, method: string, path: string, headers: Record<string, string> = {}): ClientRequest {
  return request({
    host: '127.0.0.1',
    port: gateway.server.port,
    method,
    path,
    agent: false,
    headers: { cookie: `bot_session=${gateway.operator.cookie('bot_session')}`, connection: 'close', ...headers },
  });
}

const answered = (req: ClientRequest) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });

/** Writes `chunk`, waiting for the socket to drain when it is full. */
async function write(req: ClientRequest, chunk: Buffer): Promise<void> {
  if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
}

async function bodyText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The request to `path` the stand-in receives after this call (none before it). */
function newRequestTo(upstream: StandInUpstream, path: string): () => RecordedRequest | undefined {
  const earlier = new Set(upstream.requestsTo(path));
  return () => upstream.requestsTo(path).find((recorded) => !earlier.has(recorded));
}

/** Uploads `total` bytes, a megabyte at a time, never more than WINDOW megabytes ahead of what the stand-in received. */
async function lockstepUpload(
  gateway: Gateway,
  upstream: StandInUpstream,
  total: number,
): Promise<{ status: number; body: string; endedAt: number }> {
  const req = open(gateway, 'POST', '/api/webui/upload', { 'content-type': 'application/octet-stream', 'content-length': String(total) });
  const response = answered(req);
  const chunk = Buffer.alloc(MB, 0x5a);
  const mine = newRequestTo(upstream, '/api/webui/upload');
  for (let sent = 0; sent < total; sent += MB) {
    const arrived = sent - WINDOW * MB;
    if (arrived > 0) {
      await upstream.waitFor(
        () => (mine()?.bodyBytes ?? 0) >= arrived,
        10_000,
        `the stand-in to receive ${arrived} bytes while the client sends`,
      );
    }
    await write(req, chunk.subarray(0, Math.min(MB, total - sent)));
  }
  const endedAt = performance.now();
  req.end();
  const res = await response;
  return { status: res.statusCode ?? 0, body: await bodyText(res), endedAt };
}

let pattern = Buffer.alloc(0);
/** The download's bytes from `offset`, `length` of them (downloadByteAt repeats every 256 bytes). */
function expectedBytes(offset: number, length: number): Buffer {
  if (pattern.length < length + 256) pattern = Buffer.from(Array.from({ length: length + 256 }, (_, at) => downloadByteAt(at)));
  return pattern.subarray(offset % 256, (offset % 256) + length);
}

/** Downloads `total` bytes chunk by chunk, checking each byte; returns how much the stand-in had written at the first chunk. */
async function download(
  gateway: Gateway,
  upstream: StandInUpstream,
  total: number,
): Promise<{ status: number; writtenAtFirstChunk: number; got: number }> {
  const mine = newRequestTo(upstream, '/api/webui/download');
  const req = open(gateway, 'GET', `/api/webui/download?bytes=${total}`);
  req.end();
  const res = await answered(req);
  let writtenAtFirstChunk = -1;
  let got = 0;
  for await (const data of res) {
    const chunk = data as Buffer;
    if (writtenAtFirstChunk < 0) writtenAtFirstChunk = mine()?.responseBytes ?? -1;
    if (!chunk.equals(expectedBytes(got, chunk.length))) throw new Error(`bytes ${got} to ${got + chunk.length} differ`);
    got += chunk.length;
  }
  return { status: res.statusCode ?? 0, writtenAtFirstChunk, got };
}

describe('50 MB bodies stream both ways through the server', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
  });

  it('upload: the stand-in receives the first bytes while the client is still sending, and all 50 MB in the end', async () => {
    const { status, body, endedAt } = await lockstepUpload(gateway, upstream, TOTAL);
    expect(status, body).toBe(200);
    expect(JSON.parse(body)).toEqual({ bytes: TOTAL });
    const [recorded] = upstream.requestsTo('/api/webui/upload');
    expect(recorded?.bodyBytes).toBe(TOTAL);
    expect(recorded?.firstChunkAt).toBeLessThan(endedAt);
  });

  it('download: the first chunk reaches the client while the stand-in has not finished writing; every byte arrives intact', async () => {
    const { status, writtenAtFirstChunk, got } = await download(gateway, upstream, TOTAL);
    expect(status).toBe(200);
    expect(got).toBe(TOTAL);
    expect(writtenAtFirstChunk).toBeGreaterThan(0);
    expect(writtenAtFirstChunk).toBeLessThan(TOTAL);
    expect(upstream.requestsTo('/api/webui/download')[0]?.responseBytes).toBe(TOTAL);
  });

  it.runIf(processMemory(process.pid, 'VmHWM') !== undefined)(
    "after those, a 150 MB body each way: the server's peak RSS grows by less than 40 MB",
    async () => {
      const peakBefore = processMemory(gateway.server.pid, 'VmHWM') as number;
      expect((await lockstepUpload(gateway, upstream, 3 * TOTAL)).body).toBe(JSON.stringify({ bytes: 3 * TOTAL }));
      expect((await download(gateway, upstream, 3 * TOTAL)).got).toBe(3 * TOTAL);
      const peakAfter = processMemory(gateway.server.pid, 'VmHWM') as number;
      expect(peakAfter - peakBefore).toBeLessThan(MAX_GROWTH);
    },
  );

  it('an upload sent with Expect: 100-continue (as curl -T sends one) is forwarded without it', async () => {
    const req = open(gateway, 'POST', '/api/webui/upload', { expect: '100-continue', 'content-length': String(MB) });
    const response = answered(req);
    // Sent at once, as a client that does not wait for the 100 may.
    req.end(Buffer.alloc(MB, 0x42));
    const res = await response;
    expect([res.statusCode, await bodyText(res)]).toEqual([200, JSON.stringify({ bytes: MB })]);
    expect(upstream.requestsTo('/api/webui/upload').at(-1)?.headers['expect']).toBeUndefined();
  });

  it('server-sent events flow: an event the stand-in pushes later reaches the client on the open stream', async () => {
    const req = open(gateway, 'GET', '/api/webui/events?count=1&hold=1', { accept: 'text/event-stream' });
    req.end();
    const res = await answered(req);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = res[Symbol.asyncIterator]();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const next = await events.next();
        if (next.done) throw new Error(`the stream ended before ${needle}: ${text}`);
        text += (next.value as Buffer).toString('utf8');
      }
    };
    await until('data: {"n":1}\n\n');
    upstream.pushServerEvent({ pushed: 'later' });
    await until('data: {"pushed":"later"}\n\n');
    res.destroy();
  });
});
