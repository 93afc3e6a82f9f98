import type { AssertionSigner } from '@webui/http-hono';

/** Sends one request to the upstream and resolves with its answer's head (the body streams); the runtime's fetch by default. */
export type UpstreamTransport = (request: Request) => Promise<Response>;

/** A forwarded request in its parts, for a runtime that sends it without a web Request (UpstreamOptions.send). */
export interface UpstreamRequestParts {
  url: string;
  method: string;
  headers: Headers;
  /** Streamed; null for GET, HEAD and a request without one. */
  body: ReadableStream<Uint8Array> | null;
  signal: AbortSignal;
}

/** An upstream answer in its parts: a small one may come whole, a larger one streams. A web Response has this shape too. */
export interface UpstreamAnswerParts {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
}

/** The bot's own backend behind this server (`[webui.upstream]`, issue 33). */
export interface UpstreamOptions {
  /** The upstream's origin, e.g. `http://127.0.0.1:8002`; a Unix socket upstream has a placeholder origin and a transport that dials it. */
  origin: string;
  /** Path prefixes forwarded, matched by whole segments (`/` is everything); this server's own endpoints are never forwarded. */
  paths: readonly string[];
  /** Forwarded paths reachable without a credential, GET and HEAD only: an exact path, or a prefix when it ends with `*`. */
  publicPaths: readonly string[];
  /** Added to every upstream request (HTTP, ws-token, the channel), already expanded; they win over the caller's headers. */
  headers: Readonly<Record<string, string>>;
  /** How long to wait for the head of an upstream answer before 504 upstream_timeout. */
  timeoutMs: number;
  transport: UpstreamTransport;
  /**
   * Speed-up: sends a forwarded request from its parts and answers in parts, the same as `transport` with no web Request or
   * Response built on the way (on Node they cost more than the rest of the forward; docs/performance.md). Absent: `transport`.
   */
  send?: (request: UpstreamRequestParts) => Promise<UpstreamAnswerParts>;
  /** The Unix socket the upstream listens on (`webui.upstream.url = "unix:/path"`); `origin` is then a placeholder. */
  socketPath?: string;
  /** Where the runtime's client counts forwards by status (the metrics); a fast path that sends itself counts there too. */
  counts?: ForwardCounts;
  /** A short-lived signed assertion of the caller and its request (X-WebUI-Assertion); absent, the header is not sent. */
  assertion?: AssertionSigner;
}

/** Forwards counted by the upstream's status, or as unanswered (unreachable, timed out, refused by the transport). */
export interface ForwardCounts {
  answered(status: number): void;
  unanswered(): void;
}

/** A WebSocket to the upstream's channel, as the hub's relay needs it: the web WebSocket's shape, which `ws`, Bun and Deno share. */
export interface UpstreamSocket {
  readonly readyState: number;
  /** Bytes sent and not yet taken by the network (the web WebSocket's); the relay refuses to add to a bot that does not read. */
  readonly bufferedAmount?: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

/** What the channel relay needs besides the HTTP options: a way to open the upstream's socket (the runtime's WebSocket client). */
export interface UpstreamChannelOptions {
  upstream: UpstreamOptions;
  /**
   * Opens `url` (ws: or wss:) sending `headers` on its handshake: the configured ones and the client's identity. A client that
   * cannot send them must throw rather than open without them.
   */
  openSocket: (url: string, headers: Readonly<Record<string, string>>) => UpstreamSocket;
}

export { callerIdentity, type AssertedRequest, type AssertionSigner, type CallerIdentity } from '@webui/http-hono';
