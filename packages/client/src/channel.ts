import type { LogEntry, PluginProgress, ServerEnvelope } from '@webui/http-hono';
import type { CallOptions } from './session/call-signal.js';

/** Events the server is known to send (docs/decisions/0013-websocket-channel.md), by domain and event name; others carry `unknown`. */
export interface ChannelEventMap {
  system: { ready: { connection_id: string; timestamp: number } };
  logs: { snapshot: { entries: LogEntry[] }; entry: { entry: LogEntry } };
  plugin_progress: { snapshot: { progress: PluginProgress }; update: { progress: PluginProgress } };
}

export type ChannelEventData<D extends string, E extends string> = D extends keyof ChannelEventMap
  ? E extends keyof ChannelEventMap[D]
    ? ChannelEventMap[D][E]
    : unknown
  : unknown;

/** What `subscribe` may send along, by domain; `logs` takes how many recent entries to replay (0..500, default 100). */
export interface ChannelSubscribeDataMap {
  logs: { replay?: number };
}

export type ChannelSubscribeData<D extends string> = D extends keyof ChannelSubscribeDataMap ? ChannelSubscribeDataMap[D] : unknown;

/** The server's envelopes as @webui/http-hono defines them: an event, and the answer to a request. */
export type ChannelEvent = Extract<ServerEnvelope, { op: 'event' }>;
export type ChannelResponse = Extract<ServerEnvelope, { op: 'response' }>;

export interface ChannelClose {
  code: number;
  reason: string;
}

interface SocketEventMap {
  open: unknown;
  message: { data: unknown };
  close: { code: number; reason: string };
  error: unknown;
}

/** The part of the WHATWG WebSocket the channel uses; browsers', Deno's, Bun's, Node 22's and the `ws` package's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener<K extends keyof SocketEventMap>(type: K, listener: (event: SocketEventMap[K]) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** The unified WebSocket channel, open and past `system/ready`. */
export interface WebuiChannel {
  /** `connection_id` of the system/ready event. */
  readonly connectionId: string;
  /** Resolves once the socket is closed, by either side (code 4001: the access token changed). */
  readonly closed: Promise<ChannelClose>;
  /**
   * Subscribes to a topic and resolves with the server's response, `ok: false` included.
   * Register `on(...)` listeners first: the snapshot event follows the response at once.
   */
  subscribe<D extends string>(domain: D, topic: string, data?: ChannelSubscribeData<D>): Promise<ChannelResponse>;
  unsubscribe(domain: string, topic: string): Promise<ChannelResponse>;
  /** Calls `listener` for every event `event` of `domain` (`'*'` for every event of it); returns the function that stops it. */
  on<D extends string, E extends string>(
    domain: D,
    event: E,
    listener: (data: ChannelEventData<D, E>, envelope: ChannelEvent) => void,
  ): () => void;
  /** Sends a ping and resolves with the `ts` of the pong. */
  ping(): Promise<number>;
  close(code?: number, reason?: string): Promise<ChannelClose>;
}

export interface ChannelOptions extends CallOptions {
  /** Milliseconds to wait for system/ready, a response or a pong (default 10 000). */
  timeoutMs?: number;
}

const OPEN = 1;

/** Opens `url` (already carrying its ?token= ticket) and resolves once the server said system/ready. */
export function connectChannel(url: string, WebSocketImpl: WebSocketConstructor, options: ChannelOptions = {}): Promise<WebuiChannel> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const socket = new WebSocketImpl(url);
  const listeners = new Map<string, Set<(data: unknown, envelope: ChannelEvent) => void>>();
  const pending = new Map<string, { resolve: (response: ChannelResponse) => void; reject: (error: Error) => void }>();
  const pongs: Array<{ resolve: (ts: number) => void; reject: (error: Error) => void }> = [];
  let nextId = 1;
  let lastError = '';
  let closeInfo: ChannelClose | undefined;
  let resolveClosed: (close: ChannelClose) => void = () => undefined;
  const closed = new Promise<ChannelClose>((resolve) => (resolveClosed = resolve));

  const withTimeout = <T>(what: string, start: (resolve: (value: T) => void, reject: (error: Error) => void) => () => void): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const forget = start(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
      timer = setTimeout(() => {
        forget();
        reject(new Error(`WebUI channel: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
    });

  const notOpen = () =>
    new Error(
      closeInfo ? `WebUI channel closed (${closeInfo.code}${closeInfo.reason ? ` ${closeInfo.reason}` : ''})` : 'WebUI channel is not open',
    );

  const request = (message: {
    op: 'subscribe' | 'unsubscribe';
    domain: string;
    topic: string;
    data?: unknown;
  }): Promise<ChannelResponse> => {
    if (socket.readyState !== OPEN) return Promise.reject(notOpen());
    const id = `c${nextId++}`;
    return withTimeout<ChannelResponse>(`response to ${message.op} ${message.domain}/${message.topic}`, (resolve, reject) => {
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ ...message, id }));
      return () => pending.delete(id);
    });
  };

  const channel = (connectionId: string): WebuiChannel => ({
    connectionId,
    closed,
    subscribe: (domain, topic, data) =>
      request(data === undefined ? { op: 'subscribe', domain, topic } : { op: 'subscribe', domain, topic, data }),
    unsubscribe: (domain, topic) => request({ op: 'unsubscribe', domain, topic }),
    on(domain, event, listener) {
      const key = `${domain}/${event}`;
      const set = listeners.get(key) ?? new Set();
      listeners.set(key, set);
      const wrapped = listener as (data: unknown, envelope: ChannelEvent) => void;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    ping() {
      if (socket.readyState !== OPEN) return Promise.reject(notOpen());
      return withTimeout<number>('pong', (resolve, reject) => {
        const waiter = { resolve, reject };
        pongs.push(waiter);
        socket.send(JSON.stringify({ op: 'ping' }));
        return () => {
          const index = pongs.indexOf(waiter);
          if (index >= 0) pongs.splice(index, 1);
        };
      });
    },
    close(code = 1000, reason = '') {
      if (!closeInfo) socket.close(code, reason);
      return closed;
    },
  });

  return new Promise<WebuiChannel>((resolve, reject) => {
    const readyTimer = setTimeout(() => {
      reject(new Error(`WebUI channel: no system/ready within ${timeoutMs} ms`));
      socket.close(1000, 'no ready event');
    }, timeoutMs);
    // Before ready the call rejects with the abort's reason; after, the open channel closes normally.
    const abort = () => {
      clearTimeout(readyTimer);
      reject(signal?.reason);
      if (!closeInfo) socket.close(1000, 'aborted');
    };
    signal?.addEventListener('abort', abort, { once: true });

    socket.addEventListener('message', (event) => {
      const envelope = parseEnvelope(event.data);
      if (!envelope) return;
      if (envelope.op === 'pong') return pongs.shift()?.resolve(envelope.ts);
      if (envelope.op === 'response') {
        const key = String(envelope.id);
        const waiter = pending.get(key);
        pending.delete(key);
        return waiter?.resolve(envelope);
      }
      if (envelope.domain === 'system' && envelope.event === 'ready') {
        clearTimeout(readyTimer);
        const data = envelope.data as { connection_id?: unknown } | null;
        resolve(channel(typeof data?.connection_id === 'string' ? data.connection_id : ''));
      }
      for (const key of [`${envelope.domain}/${envelope.event}`, `${envelope.domain}/*`]) {
        for (const listener of listeners.get(key) ?? []) listener(envelope.data, envelope);
      }
    });
    socket.addEventListener('error', (event) => {
      const message = (event as { message?: unknown } | null)?.message;
      if (typeof message === 'string') lastError = message;
    });
    socket.addEventListener('close', (event) => {
      clearTimeout(readyTimer);
      signal?.removeEventListener('abort', abort);
      closeInfo = { code: event.code, reason: event.reason };
      const error = notOpen();
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
      for (const waiter of pongs.splice(0)) waiter.reject(error);
      // Before ready this is a refused handshake (401 for a bad ticket, 403 for a foreign Origin).
      reject(new Error(`WebUI channel closed before system/ready (${event.code})${lastError ? `: ${lastError}` : ''}`));
      resolveClosed(closeInfo);
    });
  });
}

function parseEnvelope(data: unknown): ServerEnvelope | null {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) text = new TextDecoder().decode(data);
  else return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && 'op' in value ? (value as ServerEnvelope) : null;
  } catch {
    return null;
  }
}
