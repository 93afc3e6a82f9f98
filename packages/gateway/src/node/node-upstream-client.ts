import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { UpstreamClient, UpstreamTarget } from '../client/upstream-client.js';
import type { UpstreamAnswerParts, UpstreamRequestParts, UpstreamSocket } from '../upstream-options.js';
import { Agent, type Dispatcher } from 'undici';
import WebSocket from 'ws';

/** Statuses whose answer never has a body (Fetch's null body statuses): a Response with one cannot be made. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
/** Answers up to this many bytes, declared by Content-Length, are passed on whole rather than streamed. */
const SMALL_ANSWER_BYTES = 64 * 1024;

/**
 * The upstream's HTTP and WebSocket clients on Node: undici's `request` over one keep-alive pool (TCP, or the
 * Unix socket `webui.upstream.url = "unix:/path"` names), and `ws` for the channel, which can send the
 * configured headers and dial a socket file. Bun and Deno use their global fetch and WebSocket instead.
 *
 * Not undici's fetch: with redirects passed through (`redirect: 'manual'`) it tees a streamed request body to be
 * able to send it again, and the branch it keeps holds every byte of an upload until the request ends (50 MB in,
 * 50 MB more RSS). Its pool is upstreamAgent.
 */
export function nodeUpstreamClient(target: UpstreamTarget, options: NodeUpstreamClientOptions = {}): UpstreamClient {
  const socketPath = target.socketPath;
  const dispatcher = upstreamAgent(socketPath);
  return {
    transport: async (request) => {
      const answer = await forward(dispatcher, request, options.relayed);
      return new Response(answer.body, answer);
    },
    // The forwarder's own requests come as parts: no web Request (and its signals) is built for them.
    send: (parts) => forward(dispatcher, parts, options.relayed),
    openSocket(url, headers) {
      // ws names a socket file in the URL itself: ws+unix:/path:/request-path.
      const address = socketPath === undefined ? url : `ws+unix:${socketPath}:${pathOf(url)}`;
      // One message per turn of the event loop, as the channel's own sockets: a bot's burst is read as fast as it is handled (issue 42).
      return new WebSocket(address, {
        headers: { ...headers },
        allowSynchronousEvents: false,
        maxPayload: MAX_UPSTREAM_FRAME_BYTES,
      }) as unknown as UpstreamSocket;
    },
    close: () => dispatcher.close(),
  };
}

/**
 * A keep-alive pool to the upstream (over its Unix socket when `socketPath` is given), as every Node client of it takes
 * one: this client and the forwarded-read fast path. Its timeouts are off: the forwarders time the answer's head
 * themselves, and an event stream may idle.
 */
export function upstreamAgent(socketPath: string | undefined): Agent {
  return new Agent({
    keepAliveTimeout: 4_000,
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(socketPath === undefined ? {} : { connect: { socketPath } }),
  });
}

export interface NodeUpstreamClientOptions {
  /** Hears of each chunk of a request body sent on (its byte count): the server's memory keeping (collectYoungGeneration). */
  relayed?: (bytes: number) => void;
}

/** The largest frame taken from the bot's channel (ws's default is 100 MiB): one frame is held whole before it is relayed. */
export const MAX_UPSTREAM_FRAME_BYTES = 16 * 1024 * 1024;

/** Sends `request` through `dispatcher`, its body streamed; the answer in parts, a small one whole, else streamed. */
async function forward(
  dispatcher: Dispatcher,
  request: Request | UpstreamRequestParts,
  relayed?: (bytes: number) => void,
): Promise<UpstreamAnswerParts> {
  const url = new URL(request.url);
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  // The answer's body is passed on as it comes: nothing here would decode a compressed one.
  headers['accept-encoding'] = 'identity';
  let answer: Dispatcher.ResponseData;
  try {
    answer = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers,
      body: request.body === null ? null : requestBody(request.body as ReadableStream<Uint8Array>, relayed),
      signal: request.signal,
    });
  } catch (error) {
    // fetch's shape, which the forwarder logs from: a TypeError whose cause holds the system code.
    throw new TypeError('upstream request failed', { cause: error });
  }
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
  }
  const bodyless = NULL_BODY_STATUS.has(answer.statusCode) || request.method === 'HEAD';
  // Read to its (empty) end, so the connection goes back to the pool.
  if (bodyless) void answer.body.dump();
  // A small answer of a declared length is read whole: a streamed one costs the web stream's plumbing on both sides.
  const length = Number(answer.headers['content-length'] ?? NaN);
  const small = !bodyless && length <= SMALL_ANSWER_BYTES;
  const body = bodyless ? null : small ? new Uint8Array(await answer.body.arrayBuffer()) : webBody(answer.body);
  return { status: answer.statusCode, statusText: answer.statusText, headers: answerHeaders, body };
}

/**
 * The answer's body as a web stream, pulled a chunk at a time; cancelling it destroys the body, which aborts the upstream
 * request. Not Readable.toWeb (Node 20's throws on data arriving after a cancel) nor ReadableStream.from (its cancel does
 * not reach a body whose iterator has not started, and the pooled connection then never frees).
 */
function webBody(body: Readable): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel() {
        // The abort surfaces as the body's error: expected here, not a crash.
        body.on('error', () => undefined);
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/** A request body as undici sends it, each chunk told to `relayed` as undici takes it. */
function requestBody(body: ReadableStream<Uint8Array>, relayed?: (bytes: number) => void): Readable {
  if (relayed === undefined) return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        relayed(chunk.byteLength);
        controller.enqueue(chunk);
      },
    }),
  );
  return Readable.fromWeb(counted as NodeReadableStream<Uint8Array>);
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}
